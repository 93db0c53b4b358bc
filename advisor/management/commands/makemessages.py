"""makemessages that also extracts the domain's ``N_()`` markers (docs/decisions/0002).

Strings land in the nearest ``locale/`` directory above the file: vendors/locale,
advisor/domain/<area>/locale, or the project's locale/ for everything else.
"""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=N_", "--keyword=Nn_:1,2"]

    def handle(self, *args, **options):
        options["ignore_patterns"] = [
            *(options.get("ignore_patterns") or []),
            "var",
            "tests",
            "bench",
            "staticfiles",
        ]
        super().handle(*args, **options)
