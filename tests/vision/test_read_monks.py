"""ShenShi's monks (vision.read_monks) and what the rules tell the reader: the metals in
play, the tiles that never leave the marked squares, seats that hold no legs, legs that
show a monk, and the set's one monk of each metal and size."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engines.observation import Observation, Reading
from engines.shenshi.rules import ShenshiRules
from vision.evaluate.sets import shot_view
from vision.pipeline import reader_for
from vision.read_config import ReadConfig
from vision.read_monks import _middle_gap, _shaded_middle
from vision.read_shenshi import ShenshiReader, metals_in_play

from .test_read_shenshi import (
    EMPTY_SEATS,
    MARKED,
    bench_photo,
    hard_photo,
    read_bench_photo,
    read_bench_photo_changed,
    wrong,
)


@pytest.mark.parametrize(
    ("players", "metals"),
    [
        (("silver", "copper"), ("silver", "copper", "black")),
        (("silver", "copper", "gold"), ("silver", "copper", "gold", "black")),
        (("silver", "copper", "gold", "black"), ("silver", "copper", "gold", "black")),
    ],
)
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


@pytest.mark.slow
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
MISPLACED = (
    *((f"{square} tile", "faded") for square in MARKED),
    ("d4 tile", "intact"),
    ("c3 tile", "intact"),
)


@pytest.mark.parametrize(
    ("elevation", "rotation", "light", "seed"), [(45.0, 20.0, 110.0, 45), (75.0, 200.0, 290.0, 75)]
)
def test_tiles_off_the_marked_squares(
    elevation: float, rotation: float, light: float, seed: int
) -> None:
    """The squares the rules never put a tile on read bare stone when their colour
    is unsure, and an intact mandala put there by mistake is never read as bare (the
    referee should hear of it)."""
    picture, view = hard_photo(MISPLACED, elevation, rotation, light, seed)
    reading = ShenshiReader().read(picture.image, view)
    assert wrong(ShenshiReader(), picture, view, "tile")[0] == []
    truth = picture.visible()
    misplaced = [element for element, _ in MISPLACED if element.split(" ")[0] not in MARKED]
    bare = [
        f"{f}{r} tile"
        for f in "abcdefg"
        for r in range(1, 8)
        if f"{f}{r}" not in MARKED
        and f"{f}{r} tile" not in misplaced
        and truth[f"{f}{r} tile"].known
    ]
    assert all(reading.observation[element].value == "none" for element in bare)
    # unsure or intact, never passed off as the bare stone the rules expect there
    shown = [reading.observation[element].value for element in misplaced if truth[element].known]
    assert "intact" in shown and set(shown) <= {"intact", None}


# Intact mandalas on every marked square, under the hardest light: the warm lamp
# makes their red edge and yellow corners look like skin.
INTACT = tuple((f"{square} tile", "intact") for square in MARKED)


@pytest.mark.slow
def test_intact_mandalas_are_told_from_hands_by_their_pattern() -> None:
    """Yellow corners and red edges read an intact mandala the colour of the band
    alone takes for a hand; faded mandalas and bare stone never read intact."""
    blind = replace(
        ReadConfig.for_game("shenshi"),
        intact_pattern_margin=float("inf"),
        intact_pattern_sum=float("inf"),
    )
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


# --- pictures of the bench's hardest level (see test_read_shenshi) -----------------------


def blind_reading(
    monkeypatch: pytest.MonkeyPatch,
    check: str,
    seed: int,
    index: int,
    config: ReadConfig | None = None,
) -> Observation:
    """What the reader reads in a bench picture with one of its checks turned off
    (and ``config``)."""
    monkeypatch.setattr(ShenshiReader, check, lambda *_: None)
    image, truth = bench_photo(seed, index)
    reader = ShenshiReader(config=config, metals=("silver", "copper", "black"))
    return reader.read(image, shot_view(truth, reader.model.size_mm)).observation


def test_a_grey_robe_is_the_grey_metal_not_read_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """A silver master in shade, its robe grey like a black one under glare: the black
    master is read on another square, and the set has one: it is silver."""
    observation, shown = read_bench_photo(1, 16)
    assert shown["g3 monk"].value == "silver-master"
    assert observation["g3 monk"].value == "silver-master"
    assert observation["g3 monk"].confidence < 0.9  # not sure enough alone for the referee
    assert sum(observation[e].value == "black-master" for e in observation) == 1
    assert blind_reading(monkeypatch, "_grey_by_elimination", 1, 16)["g3 monk"].value is None


@pytest.mark.parametrize(("seed", "index", "square"), [(2, 23, "d6"), (7, 2, "e4"), (7, 5, "b2")])
def test_a_monk_whose_robe_looks_like_its_seat(
    monkeypatch: pytest.MonkeyPatch, seed: int, index: int, square: str
) -> None:
    """A silver Grand Master on a faded mandala beside a hand, a copper master on a
    blond cushion in a warm light, a black master on a faded mandala in the dark half
    of the light: each robe's colour is nearer its seat's than any metal. Its legs
    (the metal across their line) or its darkness keep it from being read as no
    monk, as it was without the check (and without the margin "no monk" needs over
    every metal, which now leaves them unsure before)."""
    observation, shown = read_bench_photo(seed, index)
    monk = f"{square} monk"
    assert shown[monk].value not in ("none", None) and observation[monk].value is None
    base = ReadConfig.for_game("shenshi")
    config = replace(base, none_min_margin=base.min_margin)
    assert (
        blind_reading(monkeypatch, "_monk_not_ruled_out", seed, index, config)[monk].value == "none"
    )


def test_a_silver_monk_on_a_faded_mandala_by_its_legs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its robe is unsure between silver and the print's middle; the metal across its
    legs is as wide as a monk's: silver (the print's petals never read so wide)."""
    observation, shown = read_bench_photo(1, 0)
    assert shown["d2 tile"].value == "faded"
    assert observation["d2 monk"].value == shown["d2 monk"].value == "silver-grand"
    assert blind_reading(monkeypatch, "_metal_by_legs", 1, 0)["d2 monk"].value is None


def test_the_legs_confirm_the_robe_s_metal_never_choose_it() -> None:
    """A black master on a faded mandala seen from above, a highlight on its dark
    legs: they read as wide as a monk's by silver's colour, not by black's darkness.
    Its robe is nearest black: not read silver (it was, before the legs had to agree
    with the robe)."""
    observation, shown = read_bench_photo(10, 10)
    assert shown["f4 monk"].value == "black-master"
    assert observation["f4 monk"].value in (None, "black-master")


def test_no_legs_read_over_an_unread_cushion_are_no_proof() -> None:
    """A black master on a blond cushion that glare leaves unread: glare the reader
    cannot measure there lifts its legs to a grey that is no metal in play. Its
    robe is left unsure, not read as no monk (it was, by its legs)."""
    observation, shown = read_bench_photo(11, 24)
    assert shown["e6 cushion"].value == "blond" and not observation["e6 cushion"].known
    assert shown["e6 monk"].value == "black-master" and observation["e6 monk"].value is None


def test_no_monk_on_an_intact_mandala() -> None:
    """A robe like nothing a monk or a seat shows, on an intact mandala: no monk (the
    rules seat monks on cushions and faded mandalas only)."""
    observation, shown = read_bench_photo(1, 5)
    assert shown["b4 tile"].value == observation["b4 tile"].value == "intact"
    assert observation["b4 monk"].value == "none"


@pytest.mark.parametrize(("seed", "index", "square"), [(1, 2, "d7"), (3, 20, "e6")])
def test_no_seat_off_the_marked_squares_without_a_cushion(
    seed: int, index: int, square: str
) -> None:
    """The tile's band, taken for a hand, is not read; the square is not a marked
    one, where the rules never put a tile, and no cushion is read on it: no seat,
    no monk (its robe had been left unsure between silver and a faded mandala)."""
    observation, shown = read_bench_photo(seed, index)
    assert square not in MARKED and not observation[f"{square} tile"].known
    assert observation[f"{square} cushion"].value == "none"
    assert shown[f"{square} monk"].value == observation[f"{square} monk"].value == "none"


@pytest.mark.parametrize(("seed", "index", "square"), [(8, 27, "e2"), (11, 27, "d6")])
def test_copper_in_deep_shade_is_not_read_black(seed: int, index: int, square: str) -> None:
    """A copper monk in the dark half of the hardest light is as dark as black; its
    colour, not its brightness, is still nearer copper than black's is."""
    observation, shown = read_bench_photo(seed, index)
    assert shown[f"{square} monk"].value.startswith("copper")
    assert observation[f"{square} monk"].value is None


def test_a_silver_monk_in_shade_on_a_faded_mandala_is_not_read_as_none() -> None:
    """Its robe's colour is nearer the print's than silver's, but it is far darker
    than the mandala's band around it, as no empty mandala's middle is."""
    observation, shown = read_bench_photo(9, 29)
    assert shown["f4 monk"].value == "silver-master" and observation["f4 monk"].value is None


def test_an_empty_faded_mandala_whose_print_runs_long_either_side() -> None:
    """The line across where a monk's legs would be shows the faded print's petals and
    ring, silver-like, over 7 mm on both sides but nothing on its middle, which legs
    would cross: no monk (without that gap it was left unsure)."""
    observation, shown = read_bench_photo(1, 6)
    assert shown["d6 monk"].value == "none" and observation["d6 monk"].value == "none"
    blind = read_bench_photo_changed(1, 6, no_legs_gap_mm=float("inf"))
    assert blind["d6 monk"].value is None


def test_a_silver_grand_master_with_its_legs_in_shade_is_not_read_gone() -> None:
    """Its legs' middle is in shade, metal-like only either side of a 2.5 mm gap:
    narrower than the gap that tells an empty seat."""
    observation, shown = read_bench_photo(7, 21)
    assert shown["d6 monk"].value == "silver-grand" and observation["d6 monk"].value is None


def test_a_silver_master_s_width_over_the_faded_print_is_not_its_size() -> None:
    """Seen from above, the run of silver across its legs goes on over the faded
    print's petals: 18.5 mm, a Grand Master's width. Its legs and head do not say,
    so its size is not read (it was read Grand Master)."""
    observation, shown = read_bench_photo(14, 19)
    assert shown["b6 monk"].value == "silver-master" and observation["b6 monk"].value is None


@pytest.mark.parametrize(
    ("index", "square", "check"), [(62, "d6", "none_min_margin"), (76, "f6", "legs_shade")]
)
def test_a_silver_grand_master_in_shade_on_a_faded_mandala_is_not_read_gone(
    index: int, square: str, check: str
) -> None:
    """Its robe only just nearer the print than silver (d6), its legs in shade darker
    than the rest of the line across them, which no metal's colour matches (f6): left
    unread, where each was read as no monk without its check."""
    observation, shown = read_bench_photo(1, index)
    assert shown[f"{square} monk"].value == "silver-grand"
    assert observation[f"{square} monk"].value is None
    off = {
        "none_min_margin": ReadConfig.for_game("shenshi").min_margin,
        "legs_shade": float("inf"),
    }[check]
    assert read_bench_photo_changed(1, index, **{check: off})[f"{square} monk"].value == "none"


def test_a_line_whose_middle_is_in_shade() -> None:
    line = np.zeros((49, 3))
    assert not _shaded_middle(line, 0.1)
    line[20:29] = -0.3
    assert _shaded_middle(line, 0.1)
    line[:] = -0.3
    line[22:27] = 0.0  # a pale middle: a faded mandala's heart
    assert not _shaded_middle(line, 0.1)


def test_copper_in_a_dim_light_is_not_a_grey_robe_to_eliminate() -> None:
    """A copper Grand Master in a dim light looks brownish grey: it is not read by
    elimination as the grey metal whose Grand Master is not read elsewhere (it was
    read silver)."""
    observation, shown = read_bench_photo(6, 20)
    assert shown["e1 monk"].value == "copper-grand"
    assert observation["e1 monk"].value in (None, "copper-grand")


def test_one_monk_read_on_two_squares() -> None:
    """The set has one monk of each metal and size: read twice, the clearly surer
    reading stays, else neither."""
    reader = ShenshiReader(metals=("silver", "copper", "black"))
    readings = {f"{square} monk": Reading("none", 1.0) for square in reader._squares}
    readings |= {
        "a3 monk": Reading("silver-grand", 0.95),
        "d2 monk": Reading("silver-grand", 0.45),
        "b1 monk": Reading("copper-master", 0.7),
        "g7 monk": Reading("copper-master", 0.6),
        "c5 monk": Reading("black-master", 1.0),
    }
    reasons: dict[str, str] = {}
    reader._one_of_each(readings, reasons)
    assert readings["a3 monk"].value == "silver-grand" and not readings["d2 monk"].known
    assert not readings["b1 monk"].known and not readings["g7 monk"].known
    assert readings["c5 monk"].value == "black-master"
    assert set(reasons) == {"d2 monk", "b1 monk", "g7 monk"}


def test_a_black_grand_master_read_as_the_silver_one_read_elsewhere() -> None:
    """A black Grand Master under glare, grey, read silver at 0.45, where the silver
    Grand Master is read at 0.95 on another square: not kept."""
    observation, shown = read_bench_photo(18, 4)
    assert shown["d2 monk"].value == "black-grand"
    assert observation["d2 monk"].value is None
    assert observation["a3 monk"].value == "silver-grand"


@pytest.mark.parametrize(
    ("line", "gap"),
    [
        ("..####.........####..", 9),
        ("...#######...........", 11),
        ("##########.##########", 1),
        ("......#########......", 0),
        (".....................", 21),
    ],
)
def test_the_gap_around_a_line_s_middle(line: str, gap: int) -> None:
    assert _middle_gap(np.array([c == "#" for c in line])) == gap
