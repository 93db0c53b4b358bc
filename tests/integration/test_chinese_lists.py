"""Lists in Chinese text are joined with "、", never the Latin ", " (issue 51 item 9 residue):
the results page's warning that site figures are stand-ins names them as Chinese writes a list."""

import re

import pytest

from advisor.roles import PROCUREMENT_STAFF
from tests.support.assessments import finished_assessment
from tests.support.catalog import load_catalog
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def compared(client):
    load_catalog()
    user = make_user("lists-buyer", PROCUREMENT_STAFF, password="pw")
    client.force_login(user)
    return finished_assessment(user)  # the two example sites: national and province stand-ins


def warning(client, assessment, language) -> str:
    page = client.get(
        f"/assessments/{assessment.pk}/results/", HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    found = re.search(r'<div class="placeholder-warning".*?</div>', page, re.S)
    assert found, "two sites priced partly from stand-ins carry the warning"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(0)).split())


def test_stand_in_figures_are_listed_with_the_chinese_comma(client, compared):
    text = warning(client, compared, "zh-hans")
    assert "电价、" in text, text
    assert ", " not in text and "," not in text
    assert (
        "租金。" in text or "PUE。" in text or "电价。" in text
    )  # the list ends as Chinese ends it
    english = warning(client, compared, "en")
    assert "Electricity price, " in english or "electricity price, " in english.lower()
