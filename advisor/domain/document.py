"""The scenario document: scenario v1 plus its sections, validated by one validator.

A document is what the CLIs read and what the wizard builds: a scenario v1 object
(:mod:`advisor.domain.scenario`) with optional sections such as ``site`` and ``procurement``.
:func:`validate_document` checks the scenario and every registered section, and raises
:class:`ScenarioError` naming the first bad field (``procurement.years: must be a whole
number``). Nothing is replaced or dropped silently: a value that is present is either valid or
refused. Sections register their own validator with :func:`register_section`, so a new section
(e.g. ``declared``) adds one function without touching the others.

Numbers may be JSON numbers or decimal strings (the wizard stores exact figures as strings,
"0.48"); NaN, infinities, booleans and other text are refused. The limits match what the
wizard's forms accept (a unit test compares them).

An entry point (the wizard's forms, the commands) also passes an :class:`EntryContext`: today's
date and the catalog's keys. Then a document is refused for what the wizard refuses, with the
wizard's words: a deadline that is not after today or more than 10 years ahead, a policy zone,
data center or accelerator the catalog does not have, an accelerator both preferred and
excluded, a foreign accelerator preferred with ``domestic_only``. Documents stored earlier are
computed again without it (a deadline that has since passed is a finding, not an error).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from advisor.domain.i18n import N_, Message
from advisor.domain.scenario import Scenario, ScenarioError, load_scenario

# Deepest nesting a document needs is 4 (procurement.site_overrides.<key>.<figure>); anything
# far deeper is refused before validation so that no recursion can run away.
MAX_DEPTH = 32
# Generous bounds on the size of lists and maps in a section (the catalog has tens of sites).
MAX_ITEMS = 500
MAX_TEXT = 200

PROCUREMENT_MODES = ("buy", "rent", "cloud")
QUALIFICATIONS = ("idc-licence", "icp-filing", "iso-27001", "iso-9001", "mlps-3")
COOLING_KINDS = ("air", "rear-door", "direct-liquid", "immersion")
OWN_ROOM_KEY = "own-room"

# field path -> (minimum, maximum), inclusive; "*" stands for any key of a map.
LIMITS: dict[str, tuple[float, float]] = {
    "site.room.max_kw_per_rack": (0.5, 300),
    "site.room.floor_load_kg_per_m2": (100, 20_000),
    "site.room.inlet_temp_min_c": (-10, 60),
    "site.room.inlet_temp_max_c": (-10, 60),
    "site.room.humidity_min_pct": (0, 100),
    "site.room.humidity_max_pct": (0, 100),
    "site.room.pue": (1, 3),
    "site.room.power_feeds": (1, 8),
    "site.room.ups_minutes": (0, 1440),
    "site.room.generator_start_s": (0, 3600),
    "procurement.budget_cny": (0, 10**11),
    "procurement.years": (1, 15),
    "procurement.hours_per_year": (1, 8760),
    "procurement.runs_per_year": (1, 8760),
    "procurement.rent_min_months": (1, 120),
    "procurement.resale_pct": (0, 100),
}
USAGES = ("once", "programme")
# The buyer's own figures (results page "Your own figures"): per data center, per server model,
# and general assumptions. Keys are the economics ``Overrides`` field names.
SITE_FIGURE_LIMITS = {
    "tariff_cny_per_kwh": (0, 10),
    "pue": (1, 3),
    "rack_fee_cny_per_month": (0, 1_000_000),
    "rack_power_limit_kw": (1, 200),
}
PRICE_FIGURE_LIMITS = {
    "purchase_cny_per_server": (0, 1_000_000_000),
    "rent_cny_per_server_month": (0, 100_000_000),
    "cloud_cny_per_gpu_hour": (0, 10_000),
}
GENERAL_FIGURE_LIMITS = {
    "maintenance_pct_per_year": (0, 100),
    "resale_pct": (0, 100),
    "training_power_pct": (0, 100),
    "transfer_gb_per_run": (0, 1_000_000_000),
    "transfer_cny_per_gb": (0, 100),
    "runs_per_year": (1, 8760),
    "training_hours_per_year": (1, 8760),
    "horizon_years": (1, 15),
    "rent_min_months": (1, 120),
    "rack_units_per_rack": (1, 100),
    "demand_charge_cny_per_kw_month": (0, 10_000),
    "power_full_kw": (0, 1000),
    "power_idle_kw": (0, 1000),
    **SITE_FIGURE_LIMITS,
    **PRICE_FIGURE_LIMITS,
}
WHOLE_FIGURES = frozenset({"horizon_years", "rack_units_per_rack", "rent_min_months"})

DEADLINE_MAX_YEARS = 10
# The validator's words for numbers; the wizard's number fields say the same after their label.
RANGE = N_("must be between {low} and {high}")
NOT_A_NUMBER = N_("must be a number")
NOT_A_WHOLE_NUMBER = N_("must be a whole number")


@dataclass(frozen=True)
class EntryContext:
    """What an entry point knows beyond the document: today and the catalog's keys (a set
    left ``None`` is not checked)."""

    today: date | None = None
    policy_zones: frozenset[str] | None = None
    data_centers: frozenset[str] | None = None
    accelerators: frozenset[str] | None = None
    domestic_accelerators: frozenset[str] = frozenset()
    servers: frozenset[str] | None = None


SectionValidator = Callable[[object, str], None]
SECTIONS: dict[str, SectionValidator] = {}
# Checks of a valid section against what an entry point knows: ``check(section, path, context)``.
ENTRY_CHECKS: dict[str, Callable[[dict, str, EntryContext], None]] = {}


def register_section(name: str, validator: SectionValidator, entry_check=None) -> None:
    """Validate the document's ``name`` section with ``validator(value, path)`` and, at an entry
    point, ``entry_check(value, path, context)``."""
    SECTIONS[name] = validator
    if entry_check is not None:
        ENTRY_CHECKS[name] = entry_check


def validate_document(data, context: EntryContext | None = None) -> Scenario:
    """The scenario of a valid document; :class:`ScenarioError` for the first bad field.

    With ``context`` (an entry point: the wizard, a command) the sections are also checked
    against today's date and the catalog."""
    check_depth(data)
    check_control_characters(data)
    if isinstance(data, dict):
        for name, validator in SECTIONS.items():
            if name in data and not isinstance(data[name], dict):
                validator(data[name], name)  # "must be an object", not "not a field of v1"
    scenario = load_scenario(data)
    for name, validator in SECTIONS.items():
        if name in data:
            validator(data[name], name)
            if context is not None and name in ENTRY_CHECKS and data[name] is not None:
                ENTRY_CHECKS[name](data[name], name, context)
    return scenario


# --- Rules an entry point applies, in the wizard's words ---------------------------------------

DEADLINE_NOT_AFTER_TODAY = N_("The deadline must be after today.")
DEADLINE_TOO_FAR = N_("The deadline must be within {years} years.")
HIGHEST_BELOW_LOWEST = N_("The highest value must not be below the lowest.")
BOTH_CHOSEN_AND_EXCLUDED = N_("{names}: cannot be both chosen and excluded.")
DOMESTIC_ONLY_BUT = N_("You asked for domestic accelerators only, but also for {names}.")
NOT_A_POLICY_ZONE = N_("{value} is not a province in the catalog.")
NOT_A_DATA_CENTER = N_("{value} is not a data center in the catalog.")
NOT_AN_ACCELERATOR = N_("{value} is not an accelerator in the catalog.")
NOT_A_SERVER = N_("{value} is not a server model in the catalog.")


def deadline_problem(deadline: date, today: date) -> Message | None:
    if deadline <= today:
        return Message(DEADLINE_NOT_AFTER_TODAY)
    if deadline.year > today.year + DEADLINE_MAX_YEARS:
        return Message(DEADLINE_TOO_FAR, {"years": DEADLINE_MAX_YEARS})
    return None


def overlap_problem(chosen, excluded) -> Message | None:
    both = sorted(set(chosen or ()) & set(excluded or ()))
    names = ", ".join(shown(name) for name in both)
    return Message(BOTH_CHOSEN_AND_EXCLUDED, {"names": names}) if both else None


def domestic_problem(domestic_only: bool, foreign_chosen) -> Message | None:
    foreign = list(foreign_chosen or ())
    if domestic_only and foreign:
        return Message(DOMESTIC_ONLY_BUT, {"names": ", ".join(shown(name) for name in foreign)})
    return None


def shown(value) -> str:
    """A key or value from the document as a message may print it: as it is when it is plain
    printable text, else quoted with its escapes (a line break would break the one line)."""
    text = value if isinstance(value, str) else repr(value)
    if text and text.isprintable() and not any(ch.isspace() and ch != " " for ch in text):
        return text[:80]
    return repr(text)[:80]


def _known(value: str, known: frozenset[str] | None, path: str, template: str) -> None:
    if known is not None and value not in known:
        raise ScenarioError(path, Message(template, {"value": shown(value)}))


def check_depth(data, limit: int = MAX_DEPTH) -> None:
    """Refuse a document nested deeper than ``limit`` (iteratively: no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise ScenarioError(
                "scenario", Message(N_("is nested more than {limit} levels deep"), {"limit": limit})
            )
        stack.extend((child, depth + 1) for child in children)


# C0 control characters and DEL: no key, name or value of a document needs one, and a NUL
# reaches no database (PostgreSQL refuses it in text) nor a terminal safely.
CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")
HAS_CONTROL_CHARACTER = N_("must not contain control characters (found {character})")
NAME_HAS_CONTROL_CHARACTER = N_(
    "a field name must not contain control characters (found {character})"
)


def control_character(text: str) -> str | None:
    """The first control character in ``text`` as ``U+0000``, or None."""
    found = CONTROL_CHARACTER.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


def check_text(value, path: str) -> None:
    """:class:`ScenarioError` naming ``path`` when the text holds a control character."""
    if isinstance(value, str) and (character := control_character(value)):
        raise _error(path, HAS_CONTROL_CHARACTER, character=character)


def check_control_characters(data, path: str = "scenario") -> None:
    """Refuse a control character in any key or text of the document, naming the field (each
    path as the validators name it: ``hardware.accelerator``, ``site.data_centers[0]``)."""
    stack = [(data, "")]
    while stack:
        value, here = stack.pop()
        if isinstance(value, dict):
            for key, child in value.items():
                name = key if isinstance(key, str) else str(key)
                if character := control_character(name):
                    raise _error(
                        f"{here or path}.{shown(name)}",
                        NAME_HAS_CONTROL_CHARACTER,
                        character=character,
                    )
                stack.append((child, f"{here}.{name}" if here else name))
        elif isinstance(value, list):
            stack.extend((child, f"{here or path}[{index}]") for index, child in enumerate(value))
        else:
            check_text(value, here or path)


# --- Field helpers --------------------------------------------------------------------------


def _error(path: str, template: str, **values) -> ScenarioError:
    return ScenarioError(path, Message(template, values))


def _fmt(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() else f"{value:g}"


def _object(value, path: str) -> dict:
    if not isinstance(value, dict):
        raise _error(path, N_("must be an object"))
    if len(value) > MAX_ITEMS:
        raise _error(path, N_("has more than {count} entries"), count=MAX_ITEMS)
    return value


def _keys(data: dict, allowed, path: str) -> None:
    for key in data:
        if key not in allowed:
            shown = key if isinstance(key, str) and key.isidentifier() else repr(key)[:40]
            raise _error(
                f"{path}.{shown}",
                N_("is not a field of {section} (allowed: {allowed})"),
                section=path,
                allowed=", ".join(allowed),
            )


def number(value, path: str, limits: tuple[float, float], *, whole: bool = False) -> Decimal:
    """A finite number (JSON number or decimal text) within ``limits``."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _error(path, N_("must be a whole number") if whole else N_("must be a number"))
    if isinstance(value, float) and not math.isfinite(value):
        raise _error(path, N_("must be a number"))
    try:
        parsed = Decimal(value.strip() if isinstance(value, str) else str(value))
    except (InvalidOperation, ValueError):
        raise _error(
            path, N_("must be a whole number") if whole else N_("must be a number")
        ) from None
    if not parsed.is_finite():
        raise _error(path, N_("must be a number"))
    if whole and parsed != parsed.to_integral_value():
        raise _error(path, N_("must be a whole number"))
    low, high = limits
    if not Decimal(str(low)) <= parsed <= Decimal(str(high)):
        raise _error(path, N_("must be between {low} and {high}"), low=_fmt(low), high=_fmt(high))
    return parsed


def _optional_number(data: dict, key: str, path: str, *, whole: bool = False, required=False):
    value = data.get(key)
    if value is None or value == "":
        if required:
            raise _error(path, N_("is required"))
        return None
    return number(value, path, LIMITS[path], whole=whole)


def _text(value, path: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise _error(path, N_("must be a non-empty text of at most 200 characters"))
    return value


def _text_list(value, path: str, allowed: tuple[str, ...] | None = None) -> list[str]:
    if not isinstance(value, list):
        raise _error(path, N_("must be a list"))
    if len(value) > MAX_ITEMS:
        raise _error(path, N_("has more than {count} entries"), count=MAX_ITEMS)
    for index, item in enumerate(value):
        item_path = f"{path}[{index}]"
        _text(item, item_path)
        if allowed is not None and item not in allowed:
            raise _error(item_path, N_("must be one of: {allowed}"), allowed=", ".join(allowed))
    return value


def _flag(data: dict, key: str, path: str) -> None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise _error(path, N_("must be true, false or null"))


def iso_date(value, path: str) -> date:
    if not isinstance(value, str):
        raise _error(path, N_("must be a date written YYYY-MM-DD"))
    try:
        if len(value) != len("2027-03-31"):
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        raise _error(path, N_("must be a date written YYYY-MM-DD")) from None


# --- site -----------------------------------------------------------------------------------

SITE_KEYS = ("data_centers", "room")
# The buyer's own room: its figures (the wizard's site step asks them under these names).
ROOM_FIGURES = (
    "max_kw_per_rack",
    "cooling_available",
    "floor_load_kg_per_m2",
    "inlet_temp_min_c",
    "inlet_temp_max_c",
    "humidity_min_pct",
    "humidity_max_pct",
    "pue",
    "power_feeds",
    "ups_minutes",
    "generator_start_s",
)
ROOM_KEYS = ("name", "policy_zone", *ROOM_FIGURES)


def validate_site(value, path: str = "site") -> None:
    site = _object(value, path)
    _keys(site, SITE_KEYS, path)
    if site.get("data_centers") is not None and site.get("room") is not None:
        raise _error(f"{path}.room", N_("give either data_centers or room, not both"))
    if site.get("data_centers") is not None:
        centers = _text_list(site["data_centers"], f"{path}.data_centers")
        if not centers:
            raise _error(f"{path}.data_centers", N_("must name at least one data center"))
    if site.get("room") is not None:
        _validate_room(site["room"], f"{path}.room")


def _validate_room(value, path: str) -> None:
    room = _object(value, path)
    _keys(room, ROOM_KEYS, path)
    _text(room.get("name"), f"{path}.name")
    _text(room.get("policy_zone"), f"{path}.policy_zone")
    for key in ROOM_FIGURES:
        field_path = f"{path}.{key}"
        if key == "cooling_available":
            if room.get(key) is not None:
                _text_list(room[key], field_path, COOLING_KINDS)
            continue
        required = key in ("max_kw_per_rack", "pue", "power_feeds")
        _optional_number(room, key, field_path, whole=key == "power_feeds", required=required)
    for low, high in (
        ("inlet_temp_min_c", "inlet_temp_max_c"),
        ("humidity_min_pct", "humidity_max_pct"),
    ):
        given = room.get(low) not in (None, "") and room.get(high) not in (None, "")
        if given and Decimal(str(room[low])) > Decimal(str(room[high])):
            raise _error(f"{path}.{high}", HIGHEST_BELOW_LOWEST)


def check_site_entry(site: dict, path: str, context: EntryContext) -> None:
    for index, key in enumerate(site.get("data_centers") or []):
        _known(key, context.data_centers, f"{path}.data_centers[{index}]", NOT_A_DATA_CENTER)
    room = site.get("room")
    if room is not None:
        _known(room["policy_zone"], context.policy_zones, f"{path}.room.policy_zone",
               NOT_A_POLICY_ZONE)  # fmt: skip


# --- procurement ----------------------------------------------------------------------------

PROCUREMENT_KEYS = (
    "modes",
    "budget_cny",
    "deadline",
    "qualifications",
    "preferred_accelerators",
    "excluded_accelerators",
    "domestic_only",
    "prefer_domestic",
    "usage",
    "years",
    "runs_per_year",
    "hours_per_year",
    "rent_min_months",
    "resale_pct",
    "site_overrides",
    "price_overrides",
    "overrides",
    "preferential_tariff",
)


def validate_procurement(value, path: str = "procurement") -> None:
    section = _object(value, path)
    _keys(section, PROCUREMENT_KEYS, path)
    if section.get("modes") is not None:
        modes = _text_list(section["modes"], f"{path}.modes", PROCUREMENT_MODES)
        if not modes:
            raise _error(
                f"{path}.modes",
                N_("must list at least one of: {allowed}"),
                allowed=", ".join(PROCUREMENT_MODES),
            )
    _optional_number(section, "budget_cny", f"{path}.budget_cny")
    if section.get("deadline") is not None:
        iso_date(section["deadline"], f"{path}.deadline")
    if section.get("qualifications") is not None:
        _text_list(section["qualifications"], f"{path}.qualifications", QUALIFICATIONS)
    for key in ("preferred_accelerators", "excluded_accelerators"):
        if section.get(key) is not None:
            _text_list(section[key], f"{path}.{key}")
    _flag(section, "domestic_only", f"{path}.domestic_only")
    _flag(section, "prefer_domestic", f"{path}.prefer_domestic")
    _flag(section, "preferential_tariff", f"{path}.preferential_tariff")
    _optional_number(section, "years", f"{path}.years", whole=True)
    _validate_usage(section, path)
    _optional_number(section, "rent_min_months", f"{path}.rent_min_months", whole=True)
    _optional_number(section, "resale_pct", f"{path}.resale_pct")
    if section.get("site_overrides") is not None:
        _figure_map(section["site_overrides"], f"{path}.site_overrides", SITE_FIGURE_LIMITS)
    if section.get("price_overrides") is not None:
        _figure_map(section["price_overrides"], f"{path}.price_overrides", PRICE_FIGURE_LIMITS)
    if section.get("overrides") is not None:
        _figures(section["overrides"], f"{path}.overrides", GENERAL_FIGURE_LIMITS)


def _validate_usage(section: dict, path: str) -> None:
    """One job, or a programme stated in runs a year (or, as older documents do, hours a year
    on each option's capacity): never both, and never for one job."""
    usage = section.get("usage")
    if usage is not None and usage not in USAGES:
        raise _error(f"{path}.usage", N_("must be one of: {allowed}"), allowed=", ".join(USAGES))
    runs = _optional_number(section, "runs_per_year", f"{path}.runs_per_year")
    hours = _optional_number(section, "hours_per_year", f"{path}.hours_per_year")
    if runs is not None and hours is not None:
        raise _error(f"{path}.hours_per_year", N_("give runs_per_year or hours_per_year, not both"))
    if usage == "once":
        for key, value in (("runs_per_year", runs), ("hours_per_year", hours)):
            if value is not None:
                raise _error(f"{path}.{key}", N_("is for a programme; one job runs once"))
    if usage == "programme" and runs is None and hours is None:
        raise _error(f"{path}.runs_per_year", N_("is required for a programme"))


def check_procurement_entry(section: dict, path: str, context: EntryContext) -> None:
    if section.get("deadline") is not None and context.today is not None:
        problem = deadline_problem(iso_date(section["deadline"], path), context.today)
        if problem is not None:
            raise ScenarioError(f"{path}.deadline", problem)
    chosen = section.get("preferred_accelerators") or []
    excluded = section.get("excluded_accelerators") or []
    for key, keys in (("preferred_accelerators", chosen), ("excluded_accelerators", excluded)):
        for index, value in enumerate(keys):
            _known(value, context.accelerators, f"{path}.{key}[{index}]", NOT_AN_ACCELERATOR)
    _check_figure_keys(section, path, context)
    problem = overlap_problem(chosen, excluded)
    if problem is not None:
        raise ScenarioError(f"{path}.excluded_accelerators", problem)
    foreign = [key for key in chosen if key not in context.domestic_accelerators]
    problem = domestic_problem(bool(section.get("domestic_only")), foreign)
    if problem is not None and context.accelerators is not None:
        raise ScenarioError(f"{path}.preferred_accelerators", problem)


def _check_figure_keys(section: dict, path: str, context: EntryContext) -> None:
    """Own figures name a data center (or the own room) and a server model the catalog holds:
    a figure for a key nobody reads would be silently ignored."""
    centers = context.data_centers
    if centers is not None:
        centers = centers | {OWN_ROOM_KEY}
    for key in section.get("site_overrides") or {}:
        _known(key, centers, f"{path}.site_overrides.{shown(key)}", NOT_A_DATA_CENTER)
    for key in section.get("price_overrides") or {}:
        _known(key, context.servers, f"{path}.price_overrides.{shown(key)}", NOT_A_SERVER)


def _figure_map(value, path: str, limits: dict) -> None:
    for key, figures in _object(value, path).items():
        _text(key, path)
        _figures(figures, f"{path}.{shown(key)}", limits)


def _figures(value, path: str, limits: dict) -> None:
    figures = _object(value, path)
    _keys(figures, tuple(limits), path)
    for name, figure in figures.items():
        if figure is None or figure == "":
            continue
        number(figure, f"{path}.{name}", limits[name], whole=name in WHOLE_FIGURES)


register_section("site", validate_site, check_site_entry)
register_section("procurement", validate_procurement, check_procurement_entry)
