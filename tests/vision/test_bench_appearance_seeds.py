"""The appearance benchmark's sets, started at another seed of the same set."""

from __future__ import annotations

import pytest

from vision.evaluate.appearance import SETS, setups


def test_a_first_seed_moves_the_set_without_leaving_it() -> None:
    moved = setups("test", 6, first_seed=2100)
    assert [s.seed for s in moved] == list(range(2100, 2106))
    assert [(s.kind, s.level) for s in moved] == [(s.kind, s.level) for s in setups("test", 6)]
    assert {s.kind for s in moved} == set(SETS["test"][0])


@pytest.mark.parametrize(("name", "first"), [("test", 1999), ("validation", 1995), ("train", 0)])
def test_a_first_seed_outside_the_set_is_refused(name: str, first: int) -> None:
    with pytest.raises(ValueError, match="not all of the"):
        setups(name, 6, first_seed=first)
