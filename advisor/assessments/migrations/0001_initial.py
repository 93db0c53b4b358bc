# The Assessment model moves from the wizard app to this one (docs/decisions/0041): the table
# stays ``wizard_assessment`` (only Django's state changes), and its content type is renamed so
# that permissions granted on it (roles, groups) keep pointing at it.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def rename_content_type(apps, schema_editor, old, new):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.filter(app_label=old, model="assessment").update(app_label=new)


def forwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "wizard", "assessments")


def backwards(apps, schema_editor):
    rename_content_type(apps, schema_editor, "assessments", "wizard")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("contenttypes", "0002_remove_content_type_name"),
        ("wizard", "0003_stored_recommendation"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Assessment",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("title", models.CharField(blank=True, max_length=120, verbose_name="title")),
                        ("status", models.CharField(choices=[("draft", "Draft"), ("complete", "Answers confirmed")], default="draft", max_length=16, verbose_name="status")),
                        ("version", models.PositiveIntegerField(default=1, verbose_name="version")),
                        ("answers", models.JSONField(blank=True, default=dict, verbose_name="answers")),
                        ("created_at", models.DateTimeField(auto_now_add=True, verbose_name="created")),
                        ("updated_at", models.DateTimeField(auto_now=True, verbose_name="last changed")),
                        ("owner", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="assessments", to=settings.AUTH_USER_MODEL, verbose_name="owner")),
                    ],
                    options={
                        "db_table": "wizard_assessment",
                        "verbose_name": "assessment",
                        "verbose_name_plural": "assessments",
                        "ordering": ["-updated_at", "-pk"],
                        "indexes": [models.Index(fields=["owner", "-updated_at"], name="wizard_assessment_owner_recent")],
                        "constraints": [models.CheckConstraint(condition=models.Q(("version__gte", 1)), name="wizard_assessment_version_positive")],
                    },
                ),
            ],
        ),
        migrations.RunPython(forwards, backwards),
    ]
