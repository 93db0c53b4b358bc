from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from advisor.roles import APPROVER, CATALOG_ADMIN, INTEGRATION, PROCUREMENT_STAFF, ensure_roles

DEMO_USERS = (
    # username, role, is_staff, is_superuser
    ("buyer", PROCUREMENT_STAFF, False, False),
    ("approver", APPROVER, False, False),
    # Staff in the catalog admin group (the catalog, rule parameters, answer sheets), as the
    # README says: not a superuser (users, groups, sign-in attempts and briefs are not theirs).
    ("admin", CATALOG_ADMIN, True, False),
    # A demo integration user: registers webhook endpoints on the webhooks page, nothing else.
    ("integration", INTEGRATION, False, False),
)


class Command(BaseCommand):
    help = "Create the role groups and, in development only, the demo users (buyer, approver, admin, integration)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--roles-only", action="store_true", help="Create the role groups only."
        )

    def handle(self, *args, roles_only=False, **options):
        groups = ensure_roles()
        if roles_only:
            return
        if settings.PRODUCTION:
            raise CommandError(
                "Demo users are never created in production mode (DJANGO_DEBUG is not 1)."
            )
        User = get_user_model()
        for username, role, is_staff, is_superuser in DEMO_USERS:
            user, _ = User.objects.get_or_create(username=username)
            user.is_staff = is_staff
            user.is_superuser = is_superuser
            user.set_password(settings.DEMO_PASSWORD)
            user.save()
            user.groups.add(groups[role])
        self.stdout.write(
            self.style.SUCCESS("Demo users ready: buyer, approver, admin, integration")
        )
