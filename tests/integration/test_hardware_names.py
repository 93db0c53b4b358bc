"""Accelerator, server and maker names in the reader's language on the pages and the brief."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.brief import services as brief_services
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_text
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

SERVER = "atlas-800t-a2"
ACCELERATOR_EN = "Ascend 910B 64GB (910B1-B3, Atlas 800T A2)"
SERVER_EN = "Atlas 800T A2 (8× Ascend 910B)"
# (language, names that must show, names that must not)
NAMES = {
    "zh-hans": (
        ["昇腾 910B 64GB", "Atlas 800T A2 训练服务器", "华为"],
        [ACCELERATOR_EN, SERVER_EN, "Huawei"],
    ),
    "en": (
        [ACCELERATOR_EN, SERVER_EN, "Huawei"],
        ["昇腾", "训练服务器", "华为"],
    ),
}


@pytest.fixture(autouse=True)
def seeded():
    load_catalog()


@pytest.fixture
def assessment(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)


def page(client, name, language, *args, **params):
    response = client.get(reverse(name, args=args), params, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response


def assert_names(html, language):
    shown, hidden = NAMES[language]
    for name in shown:
        assert name in html, (language, name)
    for name in hidden:
        assert name not in html, (language, name)


@pytest.mark.parametrize("language", NAMES)
def test_results_option_and_comparison_show_hardware_names_in_the_page_language(
    client, assessment, language
):
    response = page(client, "results:list", language, assessment.pk, ranking="all")
    html = response.content.decode()
    assert_names(html, language)
    # A server whose maker has a Chinese name other than Huawei's, and one that has none.
    assert ("多家 OEM" if language == "zh-hans" else "Various OEMs") in html
    assert "DGX H200 · NVIDIA" in html  # NVIDIA has no Chinese name: the same in both
    keys = [
        r.option.key
        for r in response.context["rows"]
        if r.option.hardware.server.key == SERVER and not r.option.is_cloud  # a server is named
    ]
    assert keys, "the Atlas 800T A2 must be among the options"
    # The option page's heading and lead (the sizing notes below still carry the English name
    # as a message parameter, see docs/decisions/0030-hardware-names.md).
    option = page(client, "results:option", language, assessment.pk, keys[0]).content.decode()
    assert_names(between(option, "<h1>", 'class="key-figures"'), language)
    # The comparison's column heads and GPU row name the server and the accelerator.
    compared = page(client, "results:compare", language, assessment.pk, option=keys)
    head = between(compared.content.decode(), 'class="compare-table"', "</tr>", "</tr>")
    shown, hidden = NAMES[language]
    assert all(name in head for name in shown[:2]), head
    assert not any(name in head for name in hidden[:2]), head


def between(html, start, *ends):
    """The part of ``html`` from ``start`` up to the last of ``ends``, found in order."""
    begin = html.index(start)
    end = begin
    for marker in ends:
        end = html.index(marker, end + 1)
    return html[begin:end]


@pytest.mark.parametrize(
    ("language", "family", "other"),
    [("zh-hans", "华为 达芬奇", "Huawei Da Vinci"), ("en", "Huawei Da Vinci", "华为")],
)
def test_wizard_accelerator_families_name_the_maker_in_the_page_language(
    client, assessment, language, family, other
):
    html = page(client, "wizard:step", language, assessment.pk, "procurement").content.decode()
    assert family in html
    assert other not in html
    # The choice's value stays the English key, so stored answers keep working.
    assert 'value="huawei-da-vinci"' in html


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("zh-hans", "8张 昇腾 910B 64GB"),  # the decision: "（共8张 昇腾 910B 64GB）"
        ("en", "8 × Ascend 910B 64GB (910B1-B3, Atlas 800T A2)"),
    ],
)
def test_brief_names_the_accelerator_and_server_in_the_brief_language(
    brief_ready, tmp_path, django_capture_on_commit_callbacks, language, line
):
    user = User.objects.create_user(f"buyer-{language}")
    document = {**SCENARIO, "site": {"data_centers": ["example-guian"]}}
    with django_capture_on_commit_callbacks(execute=True):
        brief = brief_services.issue_brief(
            user=user, document=document, option_key=f"{SERVER}@example-guian", language=language
        )
    brief.refresh_from_db()
    chosen = brief.snapshot["options"][0]
    assert chosen["server"]["key"] == SERVER
    assert chosen["server"]["name_zh"] == "Atlas 800T A2 训练服务器"
    assert chosen["server"]["maker_zh"] == "华为"
    text = "".join(pdf_text(brief.pdf, tmp_path).split())
    assert "".join(line.split()) in text
    server = "Atlas 800T A2 训练服务器" if language == "zh-hans" else SERVER_EN
    assert "".join(server.split()) in text
