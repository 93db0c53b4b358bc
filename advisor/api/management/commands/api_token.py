"""``manage.py api_token create --user USERNAME --scope read|write [--days N]``: prints a new
personal API token once (automation and tests); nothing else ever shows it again."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from advisor.api import tokens
from advisor.api.models import Scope
from advisor.management.cli import bad_input, plain_or_fail


class Command(BaseCommand):
    help = "Create a personal API token for a user and print it once."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        create = actions.add_parser("create", help="create a token and print it")
        create.add_argument("--user", required=True, help="username of the token's owner")
        create.add_argument("--scope", required=True, choices=Scope.values)
        create.add_argument(
            "--days", type=int, default=None, help=f"valid for N days (1..{tokens.MAX_DAYS})"
        )
        create.add_argument("--name", default="command line", help="what the token is for")

    def handle(self, *args, **options):
        plain_or_fail(options["user"], "user")
        plain_or_fail(options["name"], "name")
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise bad_input(f"user: no user named {options['user']!r}")
        if not user.is_active:
            raise bad_input(f"user: {options['user']!r} is deactivated")
        days = options["days"]
        if days is not None and not 1 <= days <= tokens.MAX_DAYS:
            raise bad_input(f"days: must be between 1 and {tokens.MAX_DAYS}")
        try:
            _token, text = tokens.create_token(
                user=user, name=options["name"], scope=options["scope"], days=days
            )
        except tokens.TooManyTokens as error:
            raise bad_input(str(error)) from None
        self.stdout.write(text)
