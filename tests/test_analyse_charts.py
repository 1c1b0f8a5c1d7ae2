"""The analysis charts' legends name each player by name and colour."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.charts import write_plots
from engines.search import SearchConfig
from engines.search.analysis import analyse
from tests.engines.search.test_analysis import losing_record


def _legends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, names: tuple[str, ...] | None
) -> dict[str, list[str]]:
    """Each chart's legend entries, by file name, as written."""
    from matplotlib.figure import Figure

    seen: dict[str, list[str]] = {}
    save = Figure.savefig

    def recording(self: Any, path: Any, *args: Any, **kwargs: Any) -> None:
        legend = self.axes[0].get_legend()
        seen[Path(path).name] = [] if legend is None else [t.get_text() for t in legend.get_texts()]
        save(self, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", recording)
    result = analyse(losing_record(), SearchConfig(iterations=60, seed=1))
    write_plots(result, tmp_path, names=names)
    return seen


def test_the_legends_name_each_player_with_their_colour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _legends(tmp_path, monkeypatch, ("Ann", "Bob", "Cleo", "Dan"))
    assert seen["win-chance.png"] == ["Ann (red)", "Bob (blue)", "Cleo (yellow)", "Dan (violet)"]
    assert seen["loss.png"] == ["Ann (red)", "Bob (blue)", "Cleo (yellow)", "Dan (violet)"]
    assert (tmp_path / "win-chance.png").stat().st_size > 5000


def test_without_names_the_legends_keep_the_colours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _legends(tmp_path, monkeypatch, None)
    assert seen["win-chance.png"] == ["red", "blue", "yellow", "violet"]
    assert seen["loss.png"] == ["red", "blue", "yellow", "violet"]
