# Assessment moved from the wizard app to assessments (docs/decisions/0041): the foreign key
# points at the new app's model; the column and its constraint are unchanged.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("assessments", "0001_initial"),
        ("brief", "0004_generation_lease"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="brief",
                    name="assessment",
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="briefs", to="assessments.assessment", verbose_name="assessment"),
                ),
            ],
        ),
    ]
