"""The catalog tells the compliance rules which sites a certificate's scope covers (0110).

A group certificate whose scope is something else (or not stated) is no proof for one of the
operator's data centers; one that names the site, or whose source says it covers all the
operator's sites, is.
"""

from datetime import date

import pytest
from django.core.exceptions import ValidationError

from advisor.catalog.compliance import compliance_input
from advisor.domain.compliance.engine import RULES_BY_ID, evaluate_rule
from advisor.domain.compliance.facts import OptionFacts
from advisor.domain.compliance.parameters import DEFAULT_PARAMETERS
from tests.support.catalog import load_catalog
from vendors.models import Certificate, DataCenter, HostingVendor

pytestmark = pytest.mark.django_db

TODAY = date(2026, 12, 1)


def _certificate(**fields) -> Certificate:
    row = Certificate(
        key="test-ctc-iso-27001",
        vendor=HostingVendor.objects.get(key="china-telecom"),
        kind="iso-27001",
        iso27001_edition="2022",
        number="TEST-0001",
        issuer="Test certifier",
        issued_on=date(2026, 6, 1),
        valid_until=date(2029, 5, 31),
        claim_status="verified",
        source="[vendor] Test certificate, n.d.",
        **fields,
    )
    row.full_clean()
    row.save()
    return row


def _iso27001(site: str):
    facts = compliance_input(
        today=TODAY, option=OptionFacts(), server_key="hgx-h20-8gpu", data_center_key=site
    )
    return evaluate_rule(RULES_BY_ID["VENDOR-ISO27001"], facts, DEFAULT_PARAMETERS)


@pytest.mark.parametrize(
    ("fields", "guian", "lingang"),
    [
        ({"scope": "天翼云 cloud services", "covers_all_sites": False}, "unknown", "unknown"),
        ({"scope": "not stated"}, "unknown", "unknown"),
        ({"scope": "IDC services, all sites", "covers_all_sites": True}, "pass", "pass"),
        ({"scope": "Gui'an park", "data_center_key": "ctc-guizhou-info-park"}, "pass", "unknown"),
    ],
)
def test_a_certificate_counts_only_for_the_sites_its_scope_covers(fields, guian, lingang):
    load_catalog()
    site = fields.pop("data_center_key", None)
    if site:
        fields["data_center"] = DataCenter.objects.get(key=site)
    _certificate(**fields)
    assert _iso27001("ctc-guizhou-info-park").status == guian
    assert _iso27001("ctc-shanghai-lingang").status == lingang


def test_the_named_site_must_be_the_holders():
    load_catalog()
    with pytest.raises(ValidationError) as error:
        _certificate(data_center=DataCenter.objects.get(key="vnet-beijing-jiuxianqiao"))
    assert "data_center" in error.value.message_dict


def test_vnets_cloud_certificates_are_recorded_but_cover_none_of_its_sites():
    """VNET's trust center states an ISO/IEC 27001 (CESI) and an MLPS level-3 assessment for
    the public cloud its subsidiary runs: recorded as the operator publishes them (no number or
    dates), with the cloud as scope, so VNET's Beijing site stays unknown for both checks."""
    load_catalog()
    rows = Certificate.objects.filter(vendor__key="vnet", key__startswith="vnet-azure-cn-")
    assert {(c.kind, c.mlps_level) for c in rows} == {("iso-27001", None), ("mlps", 3)}
    for cert in rows:
        assert cert.covers_all_sites is False and cert.data_center is None, cert.key
        assert cert.scope and cert.issuer and not cert.number and not cert.valid_until
        assert cert.source.startswith("[vendor] ") and "github.com/wacn/trustcenter" in cert.source
    facts = compliance_input(
        today=TODAY,
        option=OptionFacts(),
        server_key="hgx-h20-8gpu",
        data_center_key="vnet-beijing-jiuxianqiao",
    )
    for rule in ("VENDOR-ISO27001", "VENDOR-MLPS3"):
        assert evaluate_rule(RULES_BY_ID[rule], facts, DEFAULT_PARAMETERS).status == "unknown"
