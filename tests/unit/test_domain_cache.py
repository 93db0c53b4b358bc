"""advisor.domain.cache: caches by identity and by key."""

from dataclasses import dataclass

import pytest

from advisor.domain.cache import Latest, PerObject, PerObjects


@dataclass(frozen=True)
class Figures:
    pue: float


def counting():
    made = []

    def make(obj):
        made.append(obj)
        return obj.pue * 2

    return made, make


def test_a_value_is_made_once_per_object_and_extra_key():
    kept, (made, make) = PerObject(limit=10), counting()
    site = Figures(1.2)
    assert kept.get(site, make) == kept.get(site, make) == 2.4
    assert kept.get(site, make, "other") == 2.4
    assert len(made) == 2


def test_an_equal_copy_is_another_object():
    kept, (made, make) = PerObject(limit=10), counting()
    kept.get(Figures(1.2), make)
    kept.get(Figures(1.2), make)
    assert len(made) == 2


def test_a_make_that_raises_keeps_nothing():
    kept = PerObject(limit=10)
    site = Figures(0.5)

    def refuse(obj):
        raise ValueError("pue must be at least 1")

    for _ in range(2):
        with pytest.raises(ValueError):
            kept.get(site, refuse)


def test_the_memory_is_emptied_at_its_limit():
    kept, (made, make) = PerObject(limit=2), counting()
    first, second, third = Figures(1.1), Figures(1.2), Figures(1.3)
    for site in (first, second, third, first):
        kept.get(site, make)
    assert made == [first, second, third, first]


def test_a_value_of_several_objects_is_made_once_per_objects_and_extra_key():
    kept, made = PerObjects(limit=10), []
    load, site = Figures(1.2), Figures(1.5)

    def make():
        made.append(1)
        return load.pue * site.pue

    assert kept.get((load, site), make) == kept.get((load, site), make)
    kept.get((load, site), make, "other")
    kept.get((site, load), make)  # the order is part of the key
    assert len(made) == 3


def test_several_objects_an_equal_copy_of_any_is_another_entry():
    kept, made = PerObjects(limit=10), []
    load = Figures(1.2)
    for _ in range(2):
        kept.get((load, Figures(1.5)), lambda: made.append(1))
    assert len(made) == 2


def test_several_objects_a_make_that_raises_keeps_nothing_and_the_limit_empties():
    kept, made = PerObjects(limit=2), []
    load = Figures(1.2)

    def refuse():
        raise ValueError("no price")

    for _ in range(2):
        with pytest.raises(ValueError):
            kept.get((load,), refuse)
    sites = [Figures(1.1), Figures(1.2), Figures(1.3)]
    for site in (*sites, sites[0]):
        kept.get((load, site), lambda site=site: made.append(site))
    assert made == [*sites, sites[0]]


@pytest.mark.parametrize(
    ("limit", "steps", "expected"),
    [
        # Kept a, b, c with room for two: a goes.
        (2, "+a +b +c", {"a": None, "b": "B", "c": "C"}),
        # Reading a before c is kept makes b the least recently used: b goes.
        (2, "+a +b ?a +c", {"a": "A", "b": None, "c": "C"}),
        # Room for all three: nothing goes.
        (3, "+a +b +c", {"a": "A", "b": "B", "c": "C"}),
    ],
)
def test_latest_keeps_the_values_last_used(limit, steps, expected):
    latest = Latest(limit)
    for step in steps.split():
        if step[0] == "+":
            latest.put(step[1], step[1].upper())
        else:
            assert latest.get(step[1]) == step[1].upper()
    assert len(latest) == min(limit, 3)
    assert {key: latest.get(key) for key in expected} == expected


def test_latest_put_again_replaces_and_clear_forgets():
    latest = Latest(2)
    latest.put("a", 1)
    latest.put("a", 2)
    assert latest.get("a") == 2 and len(latest) == 1
    latest.clear()
    assert latest.get("a") is None and len(latest) == 0
