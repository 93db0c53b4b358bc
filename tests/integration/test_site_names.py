"""Data center and operator names in the reader's language on the rendered pages and brief."""

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from advisor.brief import services as brief_services
from advisor.recommendation.run import run_recommendation
from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.pdf import pdf_text
from tests.support.scenarios import QWEN_7B_LORA_COMPARED as SCENARIO
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

SITE = "ctc-guizhou-info-park"
DEMO = "example-guian"
# (language, names that must show, names that must not)
NAMES = {
    "zh-hans": (
        ["中国电信云计算贵州信息园", "中国电信", "演示:贵安规划示例(非真实站点)"],
        ["China Telecom Cloud Computing Guizhou Information Park", "DEMO: Gui'an planning"],
    ),
    "en": (
        ["China Telecom Cloud Computing Guizhou Information Park", "China Telecom"],
        ["中国电信云计算贵州信息园", "演示:贵安规划示例"],
    ),
}


@pytest.fixture(autouse=True)
def seeded():
    load_catalog()


@pytest.fixture
def buyer(client):
    user = make_user("buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return user


@pytest.fixture
def assessment(buyer):
    return finished_assessment(buyer, site={"mode": "compare", "compare": [SITE, DEMO]})


def page(client, name, language, *args, **params):
    response = client.get(reverse(name, args=args), params, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response


def assert_names(html, language, required=None):
    shown, hidden = NAMES[language]
    for name in required or shown:
        assert name in html, (language, name)
    for name in hidden:
        assert name not in html, (language, name)


@pytest.mark.parametrize("language", NAMES)
def test_results_and_comparison_show_names_in_the_page_language(client, assessment, language):
    response = page(client, "results:list", language, assessment.pk, ranking="all")
    assert_names(response.content.decode(), language)
    rows = [row for row in response.context["rows"] if not row.option.is_cloud]
    keys = {row.option.site.data_center.key: row.option.key for row in rows}
    assert set(keys) == {SITE, DEMO}
    compared = page(client, "results:compare", language, assessment.pk, option=list(keys.values()))
    assert_names(compared.content.decode(), language)
    option = page(client, "results:option", language, assessment.pk, keys[SITE])
    assert_names(option.content.decode(), language, NAMES[language][0][:2])


@pytest.mark.parametrize("language", NAMES)
def test_wizard_site_choices_show_names_in_the_page_language(client, assessment, language):
    html = page(client, "wizard:step", language, assessment.pk, "site").content.decode()
    expected = {
        "zh-hans": "中国电信云计算贵州信息园 · 贵安新区 · 中国电信",
        "en": "China Telecom Cloud Computing Guizhou Information Park · Gui&#x27;an New Area · "
        "China Telecom",
    }[language]
    assert expected in html
    assert_names(html, language)


# The site line of the brief: name and city in the brief's language. (The appendix lists every
# catalog record used with all its fields, both names included.)
@pytest.mark.parametrize(
    ("language", "site_line"),
    [
        ("zh-hans", "演示:贵安规划示例(非真实站点) · 贵安新区 贵州省"),
        (
            "en",
            "DEMO: Gui'an planning example (not a real site) · Gui'an New Area (Guiyang) Guizhou",
        ),
    ],
)
def test_brief_shows_the_site_name_in_the_brief_language(
    brief_ready, tmp_path, django_capture_on_commit_callbacks, language, site_line
):
    user = User.objects.create_user(f"buyer-{language}")
    document = {**SCENARIO, "site": {"data_centers": [DEMO]}}
    with django_capture_on_commit_callbacks(execute=True):
        brief = brief_services.issue_brief(
            user=user, document=document, option_key=hosted_option_key(document), language=language
        )
    brief.refresh_from_db()
    assert brief.snapshot["options"][0]["data_center"]["name_zh"] == "演示:贵安规划示例(非真实站点)"
    text = pdf_text(brief.pdf, tmp_path)
    assert "".join(site_line.split()) in "".join(text.split())


def hosted_option_key(document) -> str:
    """The top option hosted at a data center (cloud options have none to name)."""
    options = run_recommendation(document).recommendation.options
    return next(o.key for o in options if not o.is_cloud)
