"""Render an option's questionnaire as XLSX or as the PDF letter, in the active language."""

from __future__ import annotations

from django.utils.translation import gettext as _

from advisor.domain.recommend import Option, RecommendRun
from advisor.presentation.text import local_name
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


def addressee(option: Option) -> str:
    """Who answers the questionnaire: a cloud option's provider, else the data center's
    operator (or the data center when it has none on record)."""
    if option.is_cloud:
        return local_name({"name": option.cloud.provider, "name_zh": option.cloud.provider_zh})
    vendor = option.site.vendor
    if vendor.name:
        return local_name({"name": vendor.name, "name_zh": vendor.name_zh})
    return option.site.data_center.name or ""


def title(option: Option) -> str:
    server = local_name(
        {"name": option.hardware.server.name, "name_zh": option.hardware.server.name_zh}
    )
    if option.is_cloud:
        return _("Vendor questionnaire: %(server)s instances from %(provider)s") % {
            "server": server,
            "provider": addressee(option),
        }
    return _("Vendor questionnaire: %(server)s at %(site)s") % {
        "server": option.hardware.server.name,
        "site": option.site.data_center.name or option.site.data_center.key,
    }


def filename(option: Option, kind: str) -> str:
    place = option.cloud.key if option.is_cloud else option.site.data_center.key
    return f"questionnaire-{place}-{option.hardware.server.key}.{kind}"


def render(run: RecommendRun, option: Option, kind: str) -> bytes:
    questions = services.questions(run, option)
    if kind == "pdf":
        return letter.render_pdf(
            questions, title=title(option), vendor=addressee(option), today=run.today
        )
    return xlsx.write_workbook(questions, title(option))
