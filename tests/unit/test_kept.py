"""advisor.domain.kept: values worked out once per object, by its identity."""

from dataclasses import dataclass

import pytest

from advisor.domain.kept import PerObject


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
