"""ShenShi's monks (vision.read_monks) and what the rules tell the reader: the metals in
play, the tiles that never leave the marked squares, and seats that hold no legs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.shenshi.rules import ShenshiRules
from vision.pipeline import reader_for
from vision.read_config import ReadConfig
from vision.read_shenshi import ShenshiReader, metals_in_play

from .test_read_shenshi import EMPTY_SEATS, MARKED, hard_photo, wrong


@pytest.mark.parametrize(("players", "metals"), [
    (("silver", "copper"), ("silver", "copper", "black")),
    (("silver", "copper", "gold"), ("silver", "copper", "gold", "black")),
    (("silver", "copper", "gold", "black"), ("silver", "copper", "gold", "black")),
])
def test_metals_in_play(players: tuple[str, ...], metals: tuple[str, ...]) -> None:
    """Black's monks are neutral with 2 or 3 players, a player's with 4."""
    assert sorted(metals_in_play(ShenshiRules(players))) == sorted(metals)


def test_the_reader_reads_only_the_metals_in_play() -> None:
    reader = reader_for("shenshi", rules=ShenshiRules(("silver", "copper")))
    assert isinstance(reader, ShenshiReader)
    assert sorted(reader._metal_names) == ["black", "copper", "silver"]
    assert sorted(ShenshiReader()._metal_names) == ["black", "copper", "gold", "silver"]
    with pytest.raises(ValueError, match="tin"):
        ShenshiReader(metals=("silver", "tin"))


# (elevation, rotation, light direction, seed) of pictures of EMPTY_SEATS
EMPTY_VIEWS = [(50.0, 40.0, 85.0, 51), (65.0, 160.0, 205.0, 66), (80.0, 280.0, 325.0, 81)]


def test_seats_without_legs_hold_no_monk() -> None:
    """Robes left unsure between silver and the faded mandala or cushion under them
    are read as no monk where no legs cross the line where they would be: more
    monks are read than without that check, and none of them wrong."""
    blind = replace(ReadConfig.for_game("shenshi"), no_legs_run_mm=-1.0)
    read_with, read_without = 0, 0
    for view_args in EMPTY_VIEWS:
        picture, view = hard_photo(EMPTY_SEATS, *view_args)
        bad, read = wrong(ShenshiReader(), picture, view, "monk")
        assert bad == []
        read_with += read
        read_without += wrong(ShenshiReader(config=blind), picture, view, "monk")[1]
    assert read_with > read_without


# An intact mandala put by mistake on a square the rules never put a tile on, beside
# bare unmarked squares and the faded mandalas of the marked ones.
MISPLACED = (*((f"{square} tile", "faded") for square in MARKED),
             ("d4 tile", "intact"), ("c3 tile", "intact"))


@pytest.mark.parametrize(("elevation", "rotation", "light", "seed"),
                         [(45.0, 20.0, 110.0, 45), (75.0, 200.0, 290.0, 75)])
def test_tiles_off_the_marked_squares(elevation: float, rotation: float, light: float,
                                      seed: int) -> None:
    """The squares the rules never put a tile on read bare stone when their colour
    is unsure, and an intact mandala put there by mistake is never read as bare (the
    referee should hear of it)."""
    picture, view = hard_photo(MISPLACED, elevation, rotation, light, seed)
    reading = ShenshiReader().read(picture.image, view)
    assert wrong(ShenshiReader(), picture, view, "tile")[0] == []
    truth = picture.visible()
    misplaced = [element for element, _ in MISPLACED if element.split(" ")[0] not in MARKED]
    bare = [f"{f}{r} tile" for f in "abcdefg" for r in range(1, 8)
            if f"{f}{r}" not in MARKED and f"{f}{r} tile" not in misplaced
            and truth[f"{f}{r} tile"].known]
    assert all(reading.observation[element].value == "none" for element in bare)
    # unsure or intact, never passed off as the bare stone the rules expect there
    shown = [reading.observation[element].value for element in misplaced
             if truth[element].known]
    assert "intact" in shown and set(shown) <= {"intact", None}


# Intact mandalas on every marked square, under the hardest light: the warm lamp
# makes their red edge and yellow corners look like skin.
INTACT = tuple((f"{square} tile", "intact") for square in MARKED)


def test_intact_mandalas_are_told_from_hands_by_their_pattern() -> None:
    """Yellow corners and red edges read an intact mandala the colour of the band
    alone takes for a hand; faded mandalas and bare stone never read intact."""
    blind = replace(ReadConfig.for_game("shenshi"), intact_pattern_margin=float("inf"))
    read_with, read_without = 0, 0
    for view_args in EMPTY_VIEWS:
        for pieces in (INTACT, EMPTY_SEATS):
            picture, view = hard_photo(pieces, *view_args)
            bad, read = wrong(ShenshiReader(), picture, view, "tile")
            assert bad == []
            if pieces is INTACT:
                read_with += read
                read_without += wrong(ShenshiReader(config=blind), picture, view, "tile")[1]
    assert read_with > read_without
