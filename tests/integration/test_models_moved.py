"""The assessment and stored-recommendation tables moved apps without moving (decision 0041).

A database migrated before the move keeps its rows, its foreign keys and the permissions
granted on the moved models: the new apps' migrations change only Django's state and rename
the content types. Run as an operator upgrades: ``manage.py migrate`` in a subprocess.
"""

import os
import sqlite3

import pytest

from tests.support.servers import manage

BEFORE_MOVE = ("wizard", "0003_stored_recommendation")


def env_for(database):
    env = dict(os.environ)
    env.update({"DATABASE_URL": f"sqlite:///{database}", "DJANGO_DEBUG": "1"})
    return env


@pytest.mark.database
def test_an_upgraded_database_keeps_assessments_results_briefs_and_permissions(tmp_path):
    database = tmp_path / "before.sqlite3"
    env = env_for(database)
    # The schema as it was before the move: every app up to its last migration of that time.
    for app, name in (BEFORE_MOVE, ("brief", "0004"), ("questionnaire", "0001"), ("auth", None)):
        manage(env, "migrate", app, *([name] if name else []), "--noinput", "-v", "0")
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO auth_user (id, password, is_superuser, username, first_name, last_name,"
            " email, is_staff, is_active, date_joined) VALUES (7, '', 0, 'b', '', '', '', 0, 1,"
            " '2026-12-01')"
        )
        db.execute(
            "INSERT INTO wizard_assessment (id, title, status, version, answers, created_at,"
            " updated_at, owner_id) VALUES (3, 'kept', 'complete', 4, '{}', '2026-12-01',"
            " '2026-12-01', 7)"
        )
        db.execute(
            "INSERT INTO wizard_storedrecommendation (token, assessment_version, inputs_digest,"
            " catalog_stamp, computed_on, computed_at, payload_format, payload, records,"
            " assessment_id) VALUES ('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 4, 'd', 's',"
            " '2026-12-01', '2026-12-01', 1, x'00', x'00', 3)"
        )
        db.execute(
            "INSERT INTO django_content_type (app_label, model) VALUES ('wizard', 'assessment')"
        )
        type_id = db.execute("SELECT id FROM django_content_type WHERE model='assessment'")
        type_id = type_id.fetchone()[0]
        db.execute(
            "INSERT INTO auth_permission (name, content_type_id, codename) VALUES"
            " ('Can add assessment', ?, 'add_assessment')",
            (type_id,),
        )

    manage(env, "migrate", "--noinput", "-v", "0")

    shown = manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from advisor.assessments.models import Assessment; "
        "from advisor.recommendation.models import StoredRecommendation; "
        "from django.contrib.auth.models import Permission; "
        "a = Assessment.objects.get(pk=3); "
        "print(a.title, a.version, a.recommendations.count(), "
        "StoredRecommendation.objects.count(), "
        "Permission.objects.filter(codename='add_assessment', "
        "content_type__app_label='assessments').count())",
    ).stdout.split()
    assert shown == ["kept", "4", "1", "1", "1"]
    with sqlite3.connect(database) as db:
        labels = {row[0] for row in db.execute("SELECT app_label FROM django_content_type")}
    assert "assessments" in labels and "wizard" not in labels
