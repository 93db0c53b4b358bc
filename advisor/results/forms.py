"""The buyer's own figures: per data center, per server model, and the general assumptions."""

from __future__ import annotations

from decimal import Decimal

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

# (field, label, low, high) — limits keep a mistyped figure from producing nonsense.
SITE_FIELDS = (
    ("tariff_cny_per_kwh", _("Electricity price (CNY/kWh)"), "0", "10"),
    ("pue", _("PUE"), "1", "3"),
    ("rack_fee_cny_per_month", _("Rack fee (CNY per rack per month)"), "0", "1000000"),
    ("rack_power_limit_kw", _("Power per rack (kW)"), "1", "200"),
)
PRICE_FIELDS = (
    ("purchase_cny_per_server", _("Purchase price (CNY per server)"), "0", "1000000000"),
    ("rent_cny_per_server_month", _("Rent (CNY per server per month)"), "0", "100000000"),
    ("cloud_cny_per_gpu_hour", _("Cloud (CNY per GPU-hour)"), "0", "10000"),
)
GENERAL_FIELDS = (
    (
        "maintenance_pct_per_year",
        _("Maintenance (per cent of the purchase price per year)"),
        "0",
        "100",
    ),
    ("resale_pct", _("Resale value at the end (per cent of the purchase price)"), "0", "100"),
    ("training_power_pct", _("Power drawn while training (per cent of full load)"), "0", "100"),
    (
        "transfer_gb_per_run",
        _("Data moved to or from a public cloud per run (GB)"),
        "0",
        "1000000000",
    ),
    ("transfer_cny_per_gb", _("Data transfer price (CNY/GB)"), "0", "100"),
)


GENERAL_NAMES = tuple(name for name, *_ in GENERAL_FIELDS)


def _number_field(label, low: str, high: str, in_use=None) -> forms.DecimalField:
    """A figure's box; ``in_use`` (a value and its source, shown beside the box) is what the
    options use while the box is empty."""
    field = forms.DecimalField(
        label=label,
        required=False,
        min_value=Decimal(low),
        max_value=Decimal(high),
        max_digits=16,
        decimal_places=4,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "spellcheck": "false"}),
    )
    field.in_use = in_use
    return field


def _labelled(subject: str, label) -> str:
    """A field label that names its row, e.g. "Gui'an example site: PUE" (error summary)."""
    return format_lazy("{subject}: {label}", subject=subject, label=label)


def site_field(site_key: str, name: str) -> str:
    return f"site__{site_key}__{name}"


def price_field(server_key: str, name: str) -> str:
    return f"price__{server_key}__{name}"


class FiguresForm(forms.Form):
    """Built for the sites and servers of one assessment's results."""

    preferential_tariff = forms.BooleanField(
        label=_("Use the zone's claimed preferential data-center tariff where there is one"),
        required=False,
        help_text=_(
            "A local-government claim, not a tariff document: verify before relying on it."
        ),
    )

    def __init__(
        self,
        *args,
        sites: list[tuple[str, str, dict]],
        servers: list[tuple[str, str, dict]],
        general: dict | None = None,
        **kw,
    ):
        """``sites``: (key, name, figure text in use by field); ``servers``: (key, name,
        prices in use by field); ``general``: the assumptions in use by field."""
        super().__init__(*args, **kw)
        self.sites, self.servers = sites, servers
        for key, _name, catalog in sites:
            for name, label, low, high in SITE_FIELDS:
                self.fields[site_field(key, name)] = _number_field(
                    label, low, high, catalog.get(name) or _("missing")
                )
        for key, _name, prices in servers:
            for name, label, low, high in PRICE_FIELDS:
                self.fields[price_field(key, name)] = _number_field(
                    label, low, high, prices.get(name) or _("none in the catalog")
                )
        for name, label, low, high in GENERAL_FIELDS:
            self.fields[name] = _number_field(label, low, high, (general or {}).get(name))

    site_headers = [label for _name, label, *_limits in SITE_FIELDS]
    price_headers = [label for _name, label, *_limits in PRICE_FIELDS]

    def site_rows(self):
        return [
            (name, [self[site_field(key, f)] for f, *_ in SITE_FIELDS])
            for key, name, _ in self.sites
        ]

    def price_rows(self):
        return [
            (name, [self[price_field(key, f)] for f, *_ in PRICE_FIELDS])
            for key, name, _prices in self.servers
        ]

    def general_fields(self):
        return [self[name] for name, *_ in GENERAL_FIELDS]

    def to_answers(self) -> dict:
        """What the assessment stores under ``figures`` (strings keep decimals exact)."""
        data = self.cleaned_data

        def given(names):
            return {n: str(data[n]) for n in names if data.get(n) is not None}

        site_overrides = {
            key: values
            for key, _name, _catalog in self.sites
            if (
                values := {
                    f: str(data[site_field(key, f)])
                    for f, *_ in SITE_FIELDS
                    if data.get(site_field(key, f)) is not None
                }
            )
        }
        price_overrides = {
            key: values
            for key, _name, _prices in self.servers
            if (
                values := {
                    f: str(data[price_field(key, f)])
                    for f, *_ in PRICE_FIELDS
                    if data.get(price_field(key, f)) is not None
                }
            )
        }
        general = given(name for name, *_ in GENERAL_FIELDS)
        return {
            "preferential_tariff": bool(data.get("preferential_tariff")),
            "site_overrides": site_overrides,
            "price_overrides": price_overrides,
            "overrides": general,
        }

    @classmethod
    def initial_from(cls, figures: dict) -> dict:
        initial = {"preferential_tariff": bool(figures.get("preferential_tariff"))}
        for key, values in (figures.get("site_overrides") or {}).items():
            initial.update({site_field(key, f): v for f, v in values.items()})
        for key, values in (figures.get("price_overrides") or {}).items():
            initial.update({price_field(key, f): v for f, v in values.items()})
        initial.update(figures.get("overrides") or {})
        return initial
