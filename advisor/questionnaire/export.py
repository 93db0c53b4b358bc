"""Render an option's questionnaire as XLSX or as the PDF letter, in the active language."""

from __future__ import annotations

from django.utils.translation import gettext as _

from advisor.domain.recommend import Option, RecommendRun
from advisor.questionnaire import letter, xlsx
from advisor.recommendation import questions as services

CONTENT_TYPES = {
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pdf": "application/pdf",
}


def find_option(run: RecommendRun, key: str) -> Option | None:
    """The option by key (``server@data-center``) or by its rank (1 = first)."""
    options = run.recommendation.options
    if key.isdigit():
        index = int(key) - 1
        return options[index] if 0 <= index < len(options) else None
    return next((o for o in options if o.key == key), None)


def title(option: Option) -> str:
    return _("Vendor questionnaire: %(server)s at %(site)s") % {
        "server": option.hardware.server.name,
        "site": option.site.data_center.name or option.site.data_center.key,
    }


def filename(option: Option, kind: str) -> str:
    return f"questionnaire-{option.site.data_center.key}-{option.hardware.server.key}.{kind}"


def render(run: RecommendRun, option: Option, kind: str) -> bytes:
    questions = services.questions(run, option)
    if kind == "pdf":
        vendor = option.site.vendor.name or option.site.data_center.name or ""
        return letter.render_pdf(questions, title=title(option), vendor=vendor, today=run.today)
    return xlsx.write_workbook(questions, title(option))
