"""Words of the questionnaire shown in the spreadsheet, the letter, the pages and the CLI."""

from django.utils.translation import gettext_lazy as _

from advisor.domain.i18n import N_

HEADER_LABELS = {
    "id": _("Question id"),
    "subject": _("About"),
    "question": _("Question"),
    "type": _("Answer type"),
    "allowed": _("Allowed answers"),
    "unit": _("Unit"),
    "answer": _("Your answer"),
    "evidence": _("Evidence (document, certificate number)"),
    "rule": _("Rule"),
    "citation": _("Why we ask"),
}

# Refusal messages (translated when shown; the CLI prints them in English).
UNKNOWN_ID = N_("this question id is not one of ours; keep the id column as it was")
FORMULA = N_("is a formula; type the value itself (formulas are never evaluated)")
DUPLICATE_ID = N_("this question is answered twice; keep one row")
EVIDENCE_TOO_LONG = N_("must be at most {count} characters")
