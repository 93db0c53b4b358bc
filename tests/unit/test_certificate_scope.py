"""A certificate counts for a data center only where its scope covers it (decision 0110).

``covers_site`` False (a group certificate for something else, or a scope that is not recorded)
turns a certificate that would pass into "unknown" with the scope named; True and None (no site
in question: a cloud offer, a vendor comparison, a certificate the vendor declared) keep the
date checks as they were; an expired certificate still fails whatever its scope.
"""

from datetime import date

import pytest

from tests.unit.test_compliance_support import evaluate_one, facts, with_certificate

RULES = {"iso27001": "VENDOR-ISO27001", "iso9001": "VENDOR-ISO9001", "mlps": "VENDOR-MLPS3"}


@pytest.mark.parametrize("kind", RULES)
@pytest.mark.parametrize(
    ("covers", "expected"), [(True, "pass"), (None, "pass"), (False, "unknown")]
)
def test_scope_decides_whether_a_valid_certificate_counts(kind, covers, expected):
    vendor = with_certificate(kind, covers_site=covers, scope="cloud services (天翼云)")
    finding = evaluate_one(RULES[kind], facts(vendor=vendor))
    assert finding.status == expected, finding.message.render()
    if covers is False:
        assert "天翼云" in finding.message.render()


def test_a_certificate_outside_the_scope_names_its_scope_or_says_it_is_not_recorded():
    vendor = with_certificate("iso27001", covers_site=False, scope=None)
    finding = evaluate_one("VENDOR-ISO27001", facts(vendor=vendor))
    assert finding.status == "unknown"
    assert "scope not recorded" in finding.message.render()


def test_one_certificate_in_scope_is_enough():
    out_of_scope = with_certificate("iso27001", covers_site=False)["certificates"]
    in_scope = with_certificate("iso27001", covers_site=True, number="IS 000001")
    vendor = {"certificates": (*out_of_scope, *in_scope["certificates"])}
    finding = evaluate_one("VENDOR-ISO27001", facts(vendor=vendor))
    assert finding.status == "pass", finding.message.render()
    assert finding.message.params["number"] == "IS 000001"


def test_an_expired_certificate_fails_whatever_its_scope():
    vendor = with_certificate("iso27001", covers_site=False, valid_until=date(2025, 1, 1))
    finding = evaluate_one("VENDOR-ISO27001", facts(vendor=vendor))
    assert finding.status == "fail"
