"""RuleParameter: admins override a compliance threshold; validated, with history."""

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.urls import reverse

from advisor.domain.compliance.parameters import resolve_parameters
from advisor.models import RuleParameter

# Both stages (marker `database`): thresholds stored as decimals, history rows.
pytestmark = [pytest.mark.django_db, pytest.mark.database]


def test_overrides_reach_the_domain_as_a_plain_mapping():
    RuleParameter.objects.create(key="site.latency_max_ms", value="35", reason="contract")
    RuleParameter.objects.create(key="vendor.iso27001_2013_withdrawn_on", value="2025-10-31")
    overrides = RuleParameter.objects.overrides()
    assert overrides == {
        "site.latency_max_ms": "35",
        "vendor.iso27001_2013_withdrawn_on": "2025-10-31",
    }
    params = resolve_parameters(overrides)
    assert params["site.latency_max_ms"] == 35
    assert params.overridden == frozenset({"site.latency_max_ms"})


def test_rows_for_parameters_the_domain_no_longer_has_are_ignored():
    RuleParameter.objects.bulk_create([RuleParameter(key="site.retired_parameter", value="1")])
    assert RuleParameter.objects.overrides() == {}


@pytest.mark.parametrize(
    ("key", "value", "field"),
    [
        ("site.latency_max_ms", "thirty", "value"),
        ("vendor.iso27001_2013_withdrawn_on", "31.10.2025", "value"),
        ("site.no_such_parameter", "1", "key"),
    ],
)
def test_bad_values_are_rejected_on_the_field(key, value, field):
    with pytest.raises(ValidationError) as error:
        RuleParameter(key=key, value=value).full_clean()
    assert field in error.value.message_dict


def test_changes_are_kept_in_history():
    row = RuleParameter.objects.create(key="site.ups_backup_target_min", value="30")
    row.value = "45"
    row.save()
    assert [h.value for h in row.history.order_by("history_date")] == ["30", "45"]


def test_admin_lists_and_edits_parameters(client):
    admin = User.objects.create_superuser("root", "root@example.com", "pw-for-tests")
    client.force_login(admin)
    RuleParameter.objects.create(key="hw.nvme_min_usable_tb", value="10")
    listing = client.get(
        reverse("admin:advisor_ruleparameter_changelist"), HTTP_ACCEPT_LANGUAGE="en"
    )
    assert listing.status_code == 200
    assert "hw.nvme_min_usable_tb" in listing.content.decode()
    response = client.post(
        reverse("admin:advisor_ruleparameter_add"),
        {"key": "site.generator_start_max_s", "value": "abc", "reason": ""},
    )
    assert response.status_code == 200  # the form comes back with the error
    assert not RuleParameter.objects.filter(key="site.generator_start_max_s").exists()
    page = client.get(
        reverse("admin:advisor_ruleparameter_change", args=[RuleParameter.objects.get().pk]),
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert "采购方要求（来源文章）" in page.content.decode()  # the citation, translated
