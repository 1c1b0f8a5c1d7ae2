"""``companion bench vision`` runs on a tiny set and writes its table; ``companion vision
read`` reads a rendered picture and compares it with the truth; bad input says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from vision.evaluate.run import parse_seeds
from vision.evaluate.score import LevelResult, Tally


def test_bench_vision_writes_its_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.md"
    argv = [
        "bench",
        "vision",
        "--game",
        "shendao",
        "--level",
        "easy",
        "--frames",
        "2",
        "--size",
        "640x360",
        "--cache",
        str(tmp_path / "cache"),
        "--no-timing",
        "--quiet",
        "--out",
        str(out),
    ]
    assert main(argv) == 0
    table = out.read_text(encoding="utf-8")
    assert "| shendao | easy | 2 |" in table
    assert "companion bench vision --game shendao --level easy --frames 2" in table
    figures = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    result = figures["results"][0]
    assert result["boards"] == 2 and set(result["kinds"]) == {"square", "gate"}
    assert (
        result["total"]["right"] + result["total"]["wrong"] + result["total"]["abstained"]
        == 2 * 100 - result["total"]["hidden"]
    )
    assert len(list((tmp_path / "cache").glob("*.png"))) == 2
    capsys.readouterr()
    # a second run reads the cached pictures and gives the same figures
    assert main(argv) == 0
    assert (
        json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["results"]
        == figures["results"]
    )


def test_bench_vision_reads_through_localisation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.md"
    assert (
        main(
            [
                "bench",
                "vision",
                "--game",
                "shangrila",
                "--level",
                "hardest",
                "--frames",
                "1",
                "--located-frames",
                "1",
                "--size",
                "1280x720",
                "--cache",
                str(tmp_path / "cache"),
                "--no-timing",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert len(list((tmp_path / "cache").glob("*-markers.png"))) == 1
    figures = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    exact, located = figures["located"]
    assert (exact["level"], located["level"]) == ("hardest, exact view", "hardest, located")
    assert located["located"] == 1, "the Locator finds the board by its markers"
    # the same picture, read where the Locator puts the board or where it truly is
    assert located["total"]["seen"] == exact["total"]["seen"] > 0
    assert (
        abs(located["total"]["right"] - exact["total"]["right"]) <= 0.02 * exact["total"]["right"]
    )
    assert "| shangrila | hardest, located | 1 | 1 |" in out.read_text(encoding="utf-8")


def test_tally_keeps_abstentions_apart() -> None:
    tally = Tally(right=998, wrong=2, abstained=10, unseen=6, hidden=5)
    assert tally.accuracy() == pytest.approx(0.998)
    assert tally.abstention() == pytest.approx(10 / 1010)
    assert tally.unsure == 4
    assert tally.unseen_share() == pytest.approx(6 / 1010)
    assert tally.unsure_share() == pytest.approx(4 / 1010)


def test_several_sets_are_pooled_and_kept_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "bench.md"
    assert (
        main(
            [
                "bench",
                "vision",
                "--game",
                "shendao",
                "--level",
                "easy",
                "--frames",
                "1",
                "--seed",
                "1,2",
                "--size",
                "640x360",
                "--cache",
                str(tmp_path / "cache"),
                "--no-timing",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    figures = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    result = figures["results"][0]
    assert result["boards"] == 2
    assert [part["seed"] for part in result["by_seed"]] == [1, 2]
    assert sum(part["total"]["right"] for part in result["by_seed"]) == result["total"]["right"]
    table = out.read_text(encoding="utf-8")
    assert "--seed 1,2" in table and "| shendao | easy | 2 | 1 |" in table


@pytest.mark.parametrize(
    ("text", "seeds"), [("1", [1]), ("1,2,7-9", [1, 2, 7, 8, 9]), (" 3 , 3-4", [3, 4])]
)
def test_set_seeds_are_read_from_a_list_of_ranges(text: str, seeds: list[int]) -> None:
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "5-2", "1,,2", "-3"])
def test_a_bad_list_of_seeds_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_seeds(text)


def test_pooled_results_add_up() -> None:
    one = LevelResult("shendao", "hardest", 2, perfect=2, reasons={"glare": 1})
    one.kinds["square"] = Tally(right=90, abstained=2)
    two = LevelResult("shendao", "hardest", 3, perfect=2, errors=["x"], reasons={"glare": 2})
    two.kinds["square"] = Tally(right=80, wrong=1)
    one.add(two)
    assert (one.boards, one.perfect, one.errors) == (5, 4, ["x"])
    assert one.kinds["square"] == Tally(right=170, wrong=1, abstained=2)
    assert one.reasons == {"glare": 3}


def test_bench_vision_refuses_a_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "vision", "--size", "big", "--no-timing"]) == 2
    assert "--size" in capsys.readouterr().err


def test_vision_read_compares_with_the_truth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture, truth = tmp_path / "t.png", tmp_path / "t.json"
    assert (
        main(
            [
                "vision",
                "render",
                "--game",
                "shangrila",
                "--moves",
                "25",
                "--elevation",
                "70",
                "--size",
                "960x540",
                "--distance",
                "950",
                "--out",
                str(picture),
                "--truth",
                str(truth),
            ]
        )
        == 0
    )
    capsys.readouterr()
    code = main(
        [
            "vision",
            "read",
            "--game",
            "shangrila",
            str(picture),
            "--truth",
            str(truth),
            "--locate",
            "truth",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "against the truth:" in out and " 0 wrong" in out
    assert (tmp_path / "t-read.png").exists()


def test_vision_read_without_markers_says_the_board_is_not_found(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "t.png"
    assert (
        main(["vision", "render", "--game", "shendao", "--size", "640x360", "--out", str(picture)])
        == 0
    )
    capsys.readouterr()
    assert main(["vision", "read", "--game", "shendao", str(picture)]) == 1
    assert "board not found" in capsys.readouterr().out


def test_vision_read_refuses_what_is_not_a_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a picture")
    assert main(["vision", "read", "--game", "shendao", str(junk)]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["vision", "read", "--game", "shendao", str(junk), "--locate", "truth"]) == 2
