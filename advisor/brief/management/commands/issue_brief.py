"""``manage.py issue_brief``: issue a signed brief exactly as the page does (batch and tests)."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from advisor.brief import generation, services
from advisor.brief.models import BriefStatus, Origin
from advisor.management.cli import (
    bad_input,
    check_output,
    check_scenario_or_fail,
    plain_or_fail,
    read_json_or_fail,
)
from advisor.recommendation.run import run_recommendation
from advisor.roles import ISSUE


def check_user(username: str):
    """The preparer: an active user allowed to issue briefs (procurement staff), as on the page."""
    plain_or_fail(username, "user")
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise bad_input(f"user: no user named {username!r}")
    if not user.is_active:
        raise bad_input(f"user: {username!r} is deactivated")
    if not user.has_perm(ISSUE):
        raise bad_input(f"user: {username!r} may not issue briefs (procurement staff only)")
    return user


class Command(BaseCommand):
    help = (
        "Issue a procurement brief for a scenario JSON file (with optional site and "
        "procurement sections): the chosen option (default: the top recommendation), "
        "rendered, signed and stored; the PDF is also written to --output."
    )

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="scenario JSON file, or - for stdin")
        parser.add_argument("--user", required=True, help="username of the preparer")
        parser.add_argument(
            "--option", type=int, default=1, help="rank among qualifying options (default 1)"
        )
        parser.add_argument(
            "--reason",
            default="",
            help="why this option rather than rank 1: required for --option other than 1, "
            "printed in the memo",
        )
        parser.add_argument("--language", choices=("zh-hans", "en"), default="zh-hans")
        parser.add_argument("--output", required=True, type=Path, help="where to write the PDF")

    def handle(self, *args, **options):
        document = read_json_or_fail(options["input"])
        check_scenario_or_fail(document)
        user = check_user(options["user"])
        check_output(options["output"])
        qualifying = run_recommendation(document).recommendation.rankings["recommended"]
        if not qualifying:
            raise bad_input("option: no option qualifies; `manage.py recommend --all` shows why")
        if not 1 <= options["option"] <= len(qualifying):
            raise bad_input(f"option: choose 1..{len(qualifying)} (qualifying options)")
        key = qualifying[options["option"] - 1].key
        reason = options["reason"].strip()
        if options["option"] != 1 and not reason:
            raise bad_input("reason: required for an option other than rank 1 (say why)")
        if len(reason) > services.REASON_MAX_LENGTH:
            raise bad_input(f"reason: at most {services.REASON_MAX_LENGTH} characters")
        with transaction.atomic():
            brief = services.issue_brief(
                user=user,
                document=document,
                option_key=key,
                language=options["language"],
                reason=reason,
                origin=Origin.COMMAND_LINE,
            )
        brief.refresh_from_db()
        if brief.status == BriefStatus.GENERATING:  # a queued worker backend
            brief = generation.generate(brief.pk)
        if brief.status == BriefStatus.FAILED:
            raise CommandError(f"{brief.number}: generation failed: {brief.failure}")
        try:
            with brief.pdf.open("rb") as handle:
                options["output"].write_bytes(handle.read())
        except OSError as error:
            raise CommandError(
                f"output: {brief.number} is issued and stored, but writing {options['output']} "
                f"failed ({error.__class__.__name__}); download it from the brief's page"
            ) from error
        self.stdout.write(
            f"{brief.number} {brief.status} sha256={brief.sha256} -> {options['output']}"
        )
