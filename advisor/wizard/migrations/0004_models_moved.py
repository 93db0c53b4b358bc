# The wizard's two models moved (docs/decisions/0041): Assessment to ``assessments``,
# StoredRecommendation to ``recommendation``. Their tables stay; only Django's state forgets them
# here, after every foreign key points at the new apps.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("wizard", "0003_stored_recommendation"),
        ("recommendation", "0001_initial"),
        ("brief", "0005_assessment_moved"),
        ("questionnaire", "0002_assessment_moved"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="StoredRecommendation"),
                migrations.DeleteModel(name="Assessment"),
            ],
        ),
    ]
