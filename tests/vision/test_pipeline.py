"""The pipeline emits an observation only when the board is still, marks what hands
cover, says why when there is no picture or no board, and draws what it read."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from engines.observation import Observation
from tests.vision.test_read import played
from vision.models import load_model
from vision.pipeline import MOVING, NO_BOARD, NO_FRAME, STILL, Pipeline, draw_recognised
from vision.synth.camera import Camera, Imaging, Pose
from vision.synth.table import TableOptions, TableRender, render_table
from vision.view import BoardView, truth_view


@cache
def scene(hands: int = 0) -> tuple[TableRender, BoardView]:
    camera = Camera.from_fov(960, 540, 60.0)
    pose = Pose(70.0, 0.0, 950.0)
    picture = render_table(
        played("shendao", 20, 1),
        camera,
        pose,
        imaging=Imaging(noise_sigma=1.0),
        options=TableOptions(hands=hands),
        seed=hands,
    )
    return picture, truth_view(camera, pose, load_model("shendao").size_mm)


def noisy(image: np.ndarray, seed: int) -> np.ndarray:
    """The same picture with fresh sensor noise, as successive frames of a camera."""
    rng = np.random.default_rng(seed)
    return np.clip(image + rng.normal(0, 1.0, image.shape), 0, 255).astype(np.uint8)


def test_an_observation_comes_only_once_the_board_is_still() -> None:
    picture, view = scene()
    pipeline = Pipeline("shendao", view=view)
    results = [pipeline.process(noisy(picture.image, i), float(i)) for i in range(8)]
    statuses = [r.status for r in results]
    assert statuses[0] == MOVING and statuses[-1] == STILL
    assert all(r.observation is None for r in results if r.status != STILL)
    first = statuses.index(STILL)
    assert results[first].fresh and not results[-1].fresh
    observation = results[-1].observation
    assert isinstance(observation, Observation)
    truth = picture.visible()
    known = [e for e in truth if observation[e].known]
    assert len(known) >= 0.9 * len(truth)
    assert all(observation.value(e) == truth.value(e) for e in known)


def test_a_hand_stops_the_observations() -> None:
    still, view = scene()
    with_hand, _ = scene(hands=1)
    pipeline = Pipeline("shendao", view=view)
    for i in range(7):
        pipeline.process(noisy(still.image, i))
    result = pipeline.process(with_hand.image)
    assert result.status == MOVING and result.observation is None


@dataclass
class _Lost:
    message: str = "board not found: no marker seen"
    view: None = None

    def locate(self, frame: object) -> _Lost:
        return self


def test_no_board_and_no_frame_say_why() -> None:
    picture, _ = scene()
    pipeline = Pipeline("shendao", locator=_Lost())
    result = pipeline.process(picture.image)
    assert result.status == NO_BOARD and "no marker" in result.message
    assert pipeline.process(None).status == NO_FRAME


@dataclass
class _Frame:
    timestamp: float
    image: np.ndarray | None
    label: str
    problem: str = ""


def test_a_source_runs_through_frame_by_frame() -> None:
    picture, view = scene()
    pipeline = Pipeline("shendao", view=view, require_still=False)
    frames = [
        _Frame(0.0, picture.image, "a"),
        _Frame(1.0, None, "b", "damaged image"),
        _Frame(2.0, np.zeros_like(picture.image), "c"),
    ]
    results = list(pipeline.run(frames))
    assert [r.status for r in results] == [STILL, NO_FRAME, "unreadable"]
    assert results[1].message == "damaged image"
    assert "too dark" in results[2].message


def test_the_overlay_outlines_what_was_read() -> None:
    picture, view = scene()
    result = Pipeline("shendao", view=view, require_still=False).process(picture.image)
    assert result.observation is not None
    drawn = draw_recognised(picture.image, view, result.observation, load_model("shendao"))
    assert drawn.shape == picture.image.shape
    assert np.count_nonzero(np.any(drawn != picture.image, axis=2)) > 1000
    assert not np.shares_memory(drawn, picture.image)


def test_the_overlay_legend_says_what_each_colour_means() -> None:
    picture, view = scene()
    result = Pipeline("shendao", view=view, require_still=False).process(picture.image)
    assert result.observation is not None
    model = load_model("shendao")
    plain = draw_recognised(picture.image, view, result.observation, model)
    keyed = draw_recognised(picture.image, view, result.observation, model, legend=True)
    differs = np.any(plain != keyed, axis=2)
    rows, columns = np.nonzero(differs)
    assert rows.size > 0
    # a key in the top left corner, darkened under its words, nothing else changed
    assert rows.max() < picture.image.shape[0] // 3 and columns.max() < picture.image.shape[1] // 2
    corner = keyed[rows.min() : rows.max(), columns.min() : columns.max()]
    assert corner.mean() < plain[rows.min() : rows.max(), columns.min() : columns.max()].mean()
