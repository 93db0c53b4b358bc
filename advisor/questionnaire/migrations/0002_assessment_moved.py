# Assessment moved from the wizard app to assessments (docs/decisions/0041): the foreign key
# points at the new app's model; the column and its constraint are unchanged.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("assessments", "0001_initial"),
        ("questionnaire", "0001_answer_sheet"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="answersheet",
                    name="assessment",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="answer_sheets", to="assessments.assessment", verbose_name="assessment"),
                ),
            ],
        ),
    ]
