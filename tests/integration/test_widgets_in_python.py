"""The form renderer writes every widget byte for byte as Django's templates do.

advisor.presentation.widgets writes the standard widgets in Python
(docs/decisions/0077-widgets-rendered-in-python.md). Here each of Django's standard widgets, with
hostile, safe, lazy and numeric values, attributes True, False and None, and option groups, and
then every form of the app (the wizard's steps with the standard answers, the own figures, the
brief's issue, review and certificate forms, the uploads, the API token, the draft's name and
sign-in), unbound and bound, valid and with errors, in English and Chinese, is rendered with
Django's template renderer and with ours: every field, its label, each of its radios or
checkboxes (wrapped in its label or not) and the whole form must be the same string. The app's
forms are rendered with a renderer that refuses Django's widget templates (the clearable file
input apart), so the Python path is the one compared. Last, the pages that hold forms are
compared whole, with either renderer as settings.FORM_RENDERER.
"""

from __future__ import annotations

import datetime
import importlib
import inspect
import re
from decimal import Decimal

import pytest
from allauth.account.forms import LoginForm
from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms.renderers import DjangoTemplates, get_default_renderer
from django.test import RequestFactory
from django.utils import translation
from django.utils.datastructures import MultiValueDict
from django.utils.functional import lazy
from django.utils.safestring import mark_safe

from advisor.api.forms import TokenForm
from advisor.brief.forms import (
    CertificateForm,
    IssueForm,
    RemoteCredentialForm,
    ReviewForm,
    SigningTokenForm,
    VerifyUploadForm,
)
from advisor.presentation.widgets import WIDGETS, FormRenderer
from advisor.questionnaire.forms import UploadForm
from advisor.results.forms import FiguresForm
from advisor.roles import PROCUREMENT_STAFF
from advisor.wizard import steps
from advisor.wizard.forms import TitleForm
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.scenarios import answers
from tests.support.users import make_user

DJANGO = DjangoTemplates()
LANGUAGES = ["en", "zh-hans"]
HOSTILE = "<b class=\"x\">Tom & 'Jerry'</b> 1,234.5"


class PythonOnly(FormRenderer):
    """Our renderer, refusing Django's widget templates: what it writes, it wrote in Python."""

    def get_template(self, template_name):
        engine_only = WIDGETS + "clearable_file_input.html"
        assert not template_name.startswith(WIDGETS) or template_name == engine_only, template_name
        return super().get_template(template_name)


OURS = PythonOnly()


def _upper(text):
    return text.upper()


LAZY = lazy(_upper, str)("lazy <label>")
CHOICES = [
    ("", "---"),
    ("a", HOSTILE),
    ("b", mark_safe("<i>safe</i>")),
    (3, 1234.5),
    (Decimal("0.5"), LAZY),
    ("d", datetime.date(2026, 12, 3)),
]
GROUPED = [("", "---"), ("Group <1>", [("x", "X & x"), ("y", 12345)]), ("z", "Z"), (None, "none")]
ATTRS = {
    "class": "field <wide>",
    "inputmode": "decimal",
    "required": True,
    "disabled": False,
    "data-none": None,
    "data-number": 1234.5,
    "aria-describedby": HOSTILE,
    "placeholder": LAZY,
}
VALUES = [
    None,
    "",
    HOSTILE,
    mark_safe(HOSTILE),
    LAZY,
    0,
    1234567,
    Decimal("1234.50"),
    1.5,
    True,
    False,
    datetime.date(2026, 12, 3),
    datetime.datetime(2026, 12, 3, 22, 5, tzinfo=datetime.UTC),
    datetime.time(22, 5),
    ["a", 3, "x"],
]


def _widgets():
    localized = forms.TextInput()
    localized.is_localized = True
    return [
        forms.TextInput(attrs=ATTRS),
        localized,
        forms.NumberInput(),
        forms.EmailInput(),
        forms.URLInput(),
        forms.PasswordInput(render_value=True),
        forms.PasswordInput(),
        forms.HiddenInput(),
        forms.DateInput(),
        forms.DateTimeInput(),
        forms.TimeInput(),
        forms.SearchInput(),
        forms.TelInput(),
        forms.ColorInput(),
        forms.FileInput(),
        forms.CheckboxInput(attrs={"class": "c"}),
        forms.Textarea(attrs={"rows": 3}),
        forms.Select(choices=CHOICES, attrs=ATTRS),
        forms.Select(choices=GROUPED),
        forms.SelectMultiple(choices=GROUPED),
        forms.RadioSelect(choices=CHOICES, attrs=ATTRS),
        forms.RadioSelect(choices=GROUPED),
        forms.CheckboxSelectMultiple(choices=CHOICES),
        forms.CheckboxSelectMultiple(choices=GROUPED, attrs={"class": "boxes"}),
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_standard_widget_as_django_writes_it(language):
    compared = 0
    with translation.override(language):
        for widget in _widgets():
            for value in VALUES:
                for attrs in (None, {"id": "id_<x>", "required": True}):
                    theirs = widget.render("name<&>", value, attrs, renderer=DJANGO)
                    ours = widget.render("name<&>", value, attrs, renderer=OURS)
                    assert ours == theirs, (type(widget).__name__, value, attrs)
                    compared += 1
    assert compared == len(_widgets()) * len(VALUES) * 2


def test_an_option_template_not_written_here_goes_to_the_engine():
    """An option template not among those written in Python is not guessed at: the engine
    renders the whole widget (here Django's input_option.html, without radio_option.html)."""
    widget = forms.RadioSelect(choices=CHOICES)
    widget.option_template_name = WIDGETS + "input_option.html"
    theirs = widget.render("name", "a", renderer=DJANGO)
    assert widget.render("name", "a", renderer=FormRenderer()) == theirs
    with pytest.raises(AssertionError, match="radio.html"):
        widget.render("name", "a", renderer=OURS)


# Every form of the app: (form class, how to build it with data, files and a renderer, data that
# passes or nearly).
def _step(slug):
    step = steps.get(slug)
    stored = answers()[slug]

    def build(data=None, files=None, **kw):
        return step.form_class(data, files, context=step.context(answers()), stored=stored, **kw)

    return step.form_class, build, steps._as_post(stored)


def _figures(data=None, files=None, **kw):
    sites = [("example-guian", "Gui'an <example> site", {"pue": "1.25"})]
    servers = [("h20-8x", "H20 × 8", {"purchase_cny_per_server": "1,200,000"})]
    general = {"resale_pct": "10"}
    return FiguresForm(data, files, sites=sites, servers=servers, general=general, **kw)


def _review(data=None, files=None, **kw):
    return ReviewForm(data, files, open_vetoes=2, signs=True, **kw)


def _login(data=None, files=None, **kw):
    return LoginForm(data, files, request=RequestFactory().post("/accounts/login/"), **kw)


def _authentication(data=None, files=None, **kw):
    return AuthenticationForm(RequestFactory().post("/accounts/login/"), data, files, **kw)


def _plain(form_class):
    return lambda data=None, files=None, **kw: form_class(data, files, **kw)


BUILDERS = {
    FiguresForm: _figures,
    ReviewForm: _review,
    AuthenticationForm: _authentication,
    LoginForm: _login,
}
VALID = {
    FiguresForm: {"preferential_tariff": "on", "site__example-guian__pue": "1.3"},
    ReviewForm: {"decision": "approve", "comment": HOSTILE, "acknowledge_vetoes": "on"},
    TitleForm: {"title": HOSTILE},
    IssueForm: {"assessment": "1", "option": HOSTILE, "language": "en"},
    UploadForm: {"option": HOSTILE},
    CertificateForm: {"passphrase": HOSTILE},
    SigningTokenForm: {"token_label": "t<b>&'x", "key_label": HOSTILE, "pin": HOSTILE},
    RemoteCredentialForm: {"credential_id": HOSTILE},
    VerifyUploadForm: {},
    TokenForm: {"name": HOSTILE, "scope": "read", "days": "30"},
    AuthenticationForm: {"username": HOSTILE, "password": "x"},
    LoginForm: {"login": HOSTILE, "password": "x"},
}
APP_FORM_MODULES = [
    "advisor.wizard.forms.model",
    "advisor.wizard.forms.training",
    "advisor.wizard.forms.site",
    "advisor.wizard.forms.procurement",
    "advisor.wizard.forms.title",
    "advisor.results.forms",
    "advisor.brief.forms",
    "advisor.questionnaire.forms",
    "advisor.api.forms",
]


def _forms():
    steps_forms = [_step(step.slug) for step in steps.STEPS]
    others = [(cls, BUILDERS.get(cls, _plain(cls)), data) for cls, data in VALID.items()]
    return steps_forms + others


def test_every_form_of_the_app_is_compared():
    """A form class added to the app fails here until it is added to the comparison."""
    defined = {
        cls
        for module in APP_FORM_MODULES
        for _name, cls in inspect.getmembers(importlib.import_module(module), inspect.isclass)
        if issubclass(cls, forms.BaseForm) and cls.__module__ == module
    }
    assert defined - {cls for cls, _build, _data in _forms()} == set()


def _files(form):
    upload = SimpleUploadedFile("a<b>.pdf", b"%PDF-1.7 not really", content_type="application/pdf")
    return MultiValueDict(
        {
            name: [upload]
            for name, field in form.fields.items()
            if isinstance(field, forms.FileField)
        }
    )


def _every_name(form, value) -> MultiValueDict:
    return MultiValueDict({name: [value] for name in form.fields})


def _written(form) -> list[str]:
    """What a page writes of a form: the whole form; each field, its label, its radios or
    checkboxes with and without their label."""
    out = [str(form)]
    for field in form:
        out += [str(field), field.label_tag(), str(field.errors)]
        for choice in field.subwidgets:
            out += [choice.tag(), str(choice)]
    return out


def _data_sets(build, valid):
    """(data, whether files come with it): unbound, near valid, empty, hostile, out of range."""
    blank = build()
    return [
        (None, False),
        (valid, True),
        ({}, False),
        (_every_name(blank, HOSTILE), True),
        (_every_name(blank, "-1e309"), False),
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_form_of_the_app_as_django_writes_it(language):
    load_catalog()
    with translation.override(language):
        for form_class, build, valid in _forms():
            for data, with_files in _data_sets(build, valid):
                # Each form reads its uploads: each gets files of its own.
                theirs = build(data, _files(build()) if with_files else None, renderer=DJANGO)
                ours = build(data, _files(build()) if with_files else None, renderer=OURS)
                if data is not None:
                    assert theirs.is_valid() == ours.is_valid()
                assert _written(ours) == _written(theirs), (form_class.__name__, data)


# The pages that hold forms, whole, with Django's renderer and with ours.
MASKS = [
    re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+'),
    re.compile(r'(nonce=")[^"]+'),
    re.compile(r'("X-CSRFToken": ")[^"]+'),
    re.compile(r'(csrf-token" content=")[^"]+'),
]


def _masked(content: bytes) -> str:
    text = content.decode()
    for mask in MASKS:
        text = mask.sub(r"\1…", text)
    return text


def _pages(client, draft) -> dict[str, str]:
    base = f"/assessments/{draft.pk}"
    pages = {}
    for language in LANGUAGES:
        header = {"HTTP_ACCEPT_LANGUAGE": language}
        for slug in ("model", "training", "site", "procurement"):
            pages[f"{language} {slug}"] = client.get(f"{base}/{slug}/", **header)
            wrong = {name: HOSTILE for name in answers()[slug]} | {"version": draft.version}
            pages[f"{language} {slug} errors"] = client.post(f"{base}/{slug}/", wrong, **header)
        pages[f"{language} check"] = client.get(f"{base}/check/", **header)
        pages[f"{language} figures"] = client.get(f"{base}/results/figures/", **header)
        wrong = {"site__example-guian__pue": HOSTILE, "electricity_cny_per_kwh": "-1"}
        pages[f"{language} figures errors"] = client.post(
            f"{base}/results/figures/", wrong, **header
        )
    return {name: _masked(page.content) for name, page in pages.items()}


@pytest.mark.django_db
def test_the_pages_with_forms_as_django_writes_them(client, settings):
    load_catalog()
    buyer = make_user("buyer", PROCUREMENT_STAFF)
    client.force_login(buyer)
    draft = finished_assessment(buyer)
    assert isinstance(get_default_renderer(), FormRenderer)
    ours = _pages(client, draft)
    settings.FORM_RENDERER = "django.forms.renderers.DjangoTemplates"
    assert not isinstance(get_default_renderer(), FormRenderer)
    theirs = _pages(client, draft)
    assert ours.keys() == theirs.keys()
    for name in ours:
        assert ours[name] == theirs[name], name
    assert "<input" in ours["zh-hans figures errors"]
    assert 'type="radio"' in ours["en training errors"]
