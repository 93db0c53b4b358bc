from django import template
from django.utils.translation import gettext as _

from advisor.domain.compliance.base import figure
from advisor.domain.questionnaire.declared import FACTS_BY_NAME
from advisor.questionnaire.forms import UploadForm

register = template.Library()


@register.filter
def declared_value(declared) -> str:
    """A declared fact's value as a reader sees it: yes/no, lists joined, numbers plain."""
    if isinstance(declared, dict):  # a brief snapshot's entry
        value, unit = declared.get("value"), declared.get("unit") or ""
    else:
        value, unit = declared.value, declared.fact.unit
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return ", ".join(value)
    text = str(figure(value)) if isinstance(value, int | float) else str(value)
    return f"{text} {_(unit)}" if unit else text


@register.filter
def fact_question(name) -> str:
    """A declared fact named by its question in the reader's language (a brief snapshot keeps
    the catalog's field name, e.g. "ups_minutes"); an unknown name is shown as it is."""
    fact = FACTS_BY_NAME.get(name)
    return _(fact.question) if fact is not None else str(name)


@register.inclusion_tag("questionnaire/upload_form.html", takes_context=True)
def questionnaire_upload_form(context, assessment, option_key):
    """The questionnaire's upload form for one option, on any page (the option page's
    questionnaire section); the results feature shows it without importing this one."""
    from_page = context.get("questionnaire_form")  # the upload view re-renders with errors
    form = from_page if from_page is not None else UploadForm(initial={"option": option_key})
    return {"form": form, "assessment": assessment, "csrf_token": context.get("csrf_token")}
