# The StoredRecommendation model moves from the wizard app to this one (docs/decisions/0041):
# the table stays ``wizard_storedrecommendation`` (only Django's state changes).

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def rename_content_type(apps, schema_editor, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label=old, model="storedrecommendation").update(app_label=new)


def forwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "wizard", "recommendation")


def backwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "recommendation", "wizard")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("assessments", "0001_initial"),
        ("wizard", "0003_stored_recommendation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="StoredRecommendation",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("token", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                        ("assessment_version", models.PositiveIntegerField(verbose_name="assessment version")),
                        ("inputs_digest", models.CharField(max_length=64, verbose_name="inputs digest")),
                        ("catalog_stamp", models.CharField(max_length=64, verbose_name="catalog stamp")),
                        ("computed_on", models.DateField(verbose_name="computed for the day")),
                        ("computed_at", models.DateTimeField(default=django.utils.timezone.now, verbose_name="computed at")),
                        ("payload_format", models.PositiveSmallIntegerField(verbose_name="payload format")),
                        ("payload", models.BinaryField(verbose_name="payload")),
                        ("records", models.BinaryField(verbose_name="catalog records")),
                        ("assessment", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="recommendations", to="assessments.assessment", verbose_name="assessment")),
                    ],
                    options={
                        "db_table": "wizard_storedrecommendation",
                        "verbose_name": "stored recommendation",
                        "verbose_name_plural": "stored recommendations",
                        "ordering": ["-computed_at", "-pk"],
                        "indexes": [models.Index(fields=["assessment", "-id"], name="wizard_storedrec_latest")],
                    },
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
