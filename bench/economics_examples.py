"""Worked example: one 8 × H100 server (DGX H100 class) bought and hosted in Guiyang vs Shanghai.

    .venv/bin/python bench/economics_examples.py            # the sourced example figures below
    .venv/bin/python bench/economics_examples.py --hours 1000 4000 8000
    .venv/bin/python bench/economics_examples.py --catalog SERVER_KEY DC_KEY [DC_KEY ...] \
        [--fill rack_fee_cny_per_month=5000] [--set pue=1.3] [--preferential]   # figures from the loaded catalog

Prints, for each site: each mode's cost lines (unit price × quantity = amount) over three
years at the article's 2,000 training hours a year, cash out, resale and net, per run; the
break-even training hours per year and the payback month of buying against renting; the
Guiyang–Shanghai difference split into tariff, PUE and fees; and how the answer moves with
the hours per year. The source article's claim (M3: owning in
Guiyang pays back in 2.5–3 years above ~2000 h/year) is checked, not assumed.

Every figure below is an example with its source; none is a quote.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from datetime import date
from decimal import Decimal as D
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.domain.economics import (  # noqa: E402
    BUY,
    CLOUD,
    MODES,
    RENT,
    EconomicsInputs,
    Overrides,
    Prices,
    Provenance,
    ServerLoad,
    Site,
    compare_sites,
    evaluate,
    format_cny,
)
from advisor.domain.economics.inputs import (  # noqa: E402
    BASIS_ASSUMPTION,
    BASIS_CLAIM,
    BASIS_EXAMPLE,
    BASIS_MARKET,
    BASIS_OFFICIAL,
    USAGE_PROGRAMME,
)

# One DGX H100-class server: 10.2 kW maximum, 8 U (NVIDIA DGX H100 User Guide); idle 30 %
# of maximum (assumption). A LoRA run of 100 h on the 8 GPUs = 800 GPU-hours (example job).
LOAD = ServerLoad(
    server_count=1,
    gpus_per_server=8,
    power_full_kw=D("10.2"),
    power_idle_kw=D("3.06"),
    rack_units=8,
    gpu_hours_per_run=D(800),
    hours_per_run=D(100),
)
PRICES = Prices(
    purchase_cny_per_server=D(2_700_000),
    rent_cny_per_server_month=D(70_000),
    cloud_cny_per_gpu_hour=D("48.85"),
)
PROVENANCE = {
    "power_idle_kw": Provenance(BASIS_ASSUMPTION, "30 % of maximum; no published idle figure."),
    "purchase_cny_per_server": Provenance(
        BASIS_MARKET,
        "8 × H100 NVLink, spot, ~2.7 M CNY (虎嗅 dealer report, https://ghytv.com/?p=36952)",
        date(2024, 7, 14),
    ),
    "rent_cny_per_server_month": Provenance(
        BASIS_MARKET,
        "H100 8-GPU node ~70 k CNY, read as monthly (cnBeta, https://m.cnbeta.com.tw/view/1449972.htm)",
    ),
    "cloud_cny_per_gpu_hour": Provenance(
        BASIS_EXAMPLE,
        "Import parity: AWS p5.48xlarge $6.88/GPU-h (retrieved 2026-11-09) × 7.1 CNY/USD "
        "(assumed rate); not sold in mainland China",
        date(2026, 11, 9),
    ),
}
GUIYANG = Site(
    key="guiyang",
    name="Guiyang (Gui'an)",
    tariff_cny_per_kwh=D("0.35"),
    pue=D("1.2"),
    rack_fee_cny_per_month=D(5000),
    rack_power_limit_kw=D(20),
)
SHANGHAI = Site(
    key="shanghai",
    name="Shanghai",
    tariff_cny_per_kwh=D("0.708"),
    pue=D("1.35"),
    rack_fee_cny_per_month=D(8742),
    rack_power_limit_kw=D(20),
)
SITE_PROVENANCE = {
    "guiyang": {
        "tariff_cny_per_kwh": Provenance(
            BASIS_CLAIM,
            "Guizhou data-center price 0.35 CNY/kWh as claimed by Gui'an officials (2020, "
            "repeated 2026); no tariff document found: a negotiated-tariff scenario",
            date(2026, 4, 11),
        ),
        "pue": Provenance(
            BASIS_EXAMPLE, "Design PUE at the hub-node cap of 1.2 (2024 action plan); example"
        ),
        "rack_fee_cny_per_month": Provenance(
            BASIS_ASSUMPTION, "No published Guiyang rack price; get operator quotes"
        ),
        "rack_power_limit_kw": Provenance(BASIS_EXAMPLE, "20 kW high-density rack; example"),
    },
    "shanghai": {
        "tariff_cny_per_kwh": Provenance(
            BASIS_OFFICIAL,
            "Eastern proxy: Beijing 1–10 kV two-part agency-purchase tariff, 24 h flat-load "
            "average 0.708 (State Grid Beijing, 2024-07); Shanghai's table is not sourced yet",
            date(2024, 7, 1),
        ),
        "pue": Provenance(BASIS_EXAMPLE, "Existing eastern data center; example"),
        "rack_fee_cny_per_month": Provenance(
            BASIS_MARKET,
            "VNET retail MRR per cabinet 8,742 CNY (2024 call summary); ceiling anchor",
        ),
        "rack_power_limit_kw": Provenance(BASIS_EXAMPLE, "20 kW high-density rack; example"),
    },
}


# The source article's usage (M3): about 2,000 training hours a year, over three years.
ARTICLE_HOURS = D(2000)


def example_inputs(site: Site) -> EconomicsInputs:
    return EconomicsInputs(
        load=LOAD,
        site=site,
        prices=PRICES,
        provenance={**PROVENANCE, **SITE_PROVENANCE[site.key]},
    )


def catalog_inputs(
    server_key: str, dc_keys: list[str], overrides: dict, fills: dict, preferential: bool
) -> list[EconomicsInputs]:
    """The same job at each data center, from the loaded catalog (``scripts/run`` loads it).

    ``overrides`` apply at every site; ``fills`` only where the catalog has no figure.
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from advisor.catalog.economics import MissingFigures, option_inputs, site_figures
    from vendors.models import DataCenter

    options = []
    for key in dc_keys:
        figures = site_figures(DataCenter.objects.get(key=key), preferential_tariff=preferential)
        gaps = {k: v for k, v in fills.items() if getattr(figures, k, None) is None}
        try:
            options.append(
                option_inputs(
                    server_key,
                    key,
                    server_count=LOAD.server_count,
                    gpu_hours_per_run=LOAD.gpu_hours_per_run,
                    hours_per_run=LOAD.hours_per_run,
                    power_full_kw=LOAD.power_full_kw,
                    power_idle_kw=LOAD.power_idle_kw,
                    rack_units=LOAD.rack_units,
                    overrides=Overrides(**{**gaps, **overrides}),
                    preferential_tariff=preferential,
                )
            )
        except MissingFigures as missing:
            keys = " ".join(f"--fill {k}=..." for k in missing.keys)
            raise SystemExit(f"{missing}\n  give them, e.g.: {keys}") from None
    return options


def parse_pairs(pairs: list[str] | None) -> dict:
    values = {}
    for pair in pairs or []:
        name, _, value = pair.partition("=")
        values[name.strip()] = D(value)
    return values


def hours_text(value) -> str:
    return "never, up to 8,760 h/year" if value is None else f"from {value:,.0f} h/year"


def month_text(value) -> str:
    return "not within the horizon" if value is None else f"month {value} ({value / 12:.1f} years)"


def programme(inputs: EconomicsInputs, hours: D) -> EconomicsInputs:
    """The same servers trained ``hours`` a year over the horizon (the article's framing)."""
    assumptions = replace(
        inputs.assumptions, usage=USAGE_PROGRAMME, training_hours_per_year=hours, runs_per_year=None
    )
    return replace(inputs, assumptions=assumptions)


def print_lines(cost) -> None:
    for line in cost.lines:
        print(
            f"     {line.item:<16} {format_cny(line.unit_price_cny, 2):>16} × "
            f"{line.quantity:>10} {line.unit:<12} = {format_cny(line.amount_cny, 2):>16}"
        )
    print(f"     {'cash out':<16} {'':>45} = {format_cny(cost.cash_out_cny, 2):>16}")
    if cost.resale:
        r = cost.resale
        print(
            f"     {'resale':<16} {format_cny(r.unit_price_cny, 2):>16} × "
            f"{r.quantity:>10} {r.unit:<12} = {format_cny(r.amount_cny, 2):>16}"
        )
        print(f"     {'net of resale':<16} {'':>45} = {format_cny(cost.net_of_resale_cny, 2):>16}")


def print_result(inputs: EconomicsInputs) -> None:
    result = evaluate(inputs)
    a = inputs.assumptions
    print(
        f"\n== {inputs.site.name}: {a.training_hours_per_year} training h/year, "
        f"{a.horizon_years} years, {result.racks} rack(s)"
    )
    for mode in MODES:
        cost = result.costs.get(mode)
        if cost is None:
            continue
        print(f"   {mode}: {cost.runs:.0f} runs, {format_cny(cost.per_run_cny)} a run")
        print_lines(cost)
    print(f"   cheapest (net of resale): {result.cheapest_mode}")
    if result.payback is not None:
        print(
            f"   buy vs rent (cash out): break-even "
            f"{hours_text(result.payback.break_even_hours_per_year)}, "
            f"payback {month_text(result.payback.month)}"
        )


def print_hours_table(options: list[EconomicsInputs], hours: list[D]) -> None:
    print("\n== How the answer moves with training hours per year (net of resale, horizon)")
    header = f"   {'h/year':>7} " + " ".join(f"{o.site.name[:14] + ' buy':>24}" for o in options)
    print(header + f" {'rent':>14} {'cloud':>14}")
    for h in hours:
        row = [evaluate(programme(o, h)) for o in options]
        cells = " ".join(
            f"{format_cny(r.costs[BUY].net_of_resale_cny):>24}" for r in row if BUY in r.costs
        )
        first = row[0].costs
        rent = format_cny(first[RENT].net_of_resale_cny) if RENT in first else "-"
        cloud = format_cny(first[CLOUD].net_of_resale_cny) if CLOUD in first else "-"
        print(f"   {h:>7,.0f} {cells} {rent:>14} {cloud:>14}")


def print_site_difference(options: list[EconomicsInputs]) -> None:
    comparison = compare_sites(options)
    for diff in comparison.differences:
        print(
            f"\n== Buying at {diff.other_key} minus at {diff.base_key}: {format_cny(diff.total_cny)}"
        )
        for name, amount in diff.parts_cny.items():
            print(f"   {name:<11} {format_cny(amount):>14}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hours", type=D, nargs="*", default=[D(500), D(1000), D(2000), D(4000), D(8000)]
    )
    parser.add_argument(
        "--catalog", nargs="+", metavar="KEY", help="SERVER_KEY DC_KEY [DC_KEY ...]"
    )
    parser.add_argument(
        "--set", action="append", metavar="NAME=VALUE", help="override at every site: pue=1.3"
    )
    parser.add_argument(
        "--fill", action="append", metavar="NAME=VALUE", help="only where the catalog has none"
    )
    parser.add_argument(
        "--preferential", action="store_true", help="use a zone's claimed data-center tariff"
    )
    args = parser.parse_args()
    if args.catalog:
        options = catalog_inputs(
            args.catalog[0],
            args.catalog[1:],
            parse_pairs(args.set),
            parse_pairs(args.fill),
            args.preferential,
        )
    else:
        options = [example_inputs(GUIYANG), example_inputs(SHANGHAI)]
    options = [programme(o, ARTICLE_HOURS) for o in options]
    print("Figures: examples and market reports, not quotes (see the assumptions below).")
    for inputs in options:
        print_result(inputs)
    if len(options) > 1:
        print_site_difference(options)
    print_hours_table(options, args.hours)
    print("\n== Assumptions (first site)")
    for record in evaluate(options[0]).assumptions:
        source = f" — {record.source}" if record.source else ""
        print(f"   {record.message.render()} [{record.basis}]{source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
