"""Is the board still, and what is over it? Motion, hands and arms, seen on the board.

The referee must read the table only once a move is finished: when nothing has moved
over the board for a few frames and no hand is over it. A :class:`StillnessDetector` is
fed every frame with its :class:`~vision.view.BoardView`; it looks at the board straight
from above, downscaled to cells of a few millimetres (noise averages out, a frame costs
a millisecond or two), and compares

- each frame with the previous one: cells that changed are **moving**;
- each frame with the last still board: a large changed region reaching the board's
  edge (or the edge of what the camera sees of it) is an **arm or hand** over the board,
  as arms come from outside it; a small changed region inside is a piece put down,
  which becomes part of the still board once nothing moves. The first still board is
  learnt only once nothing has moved for ``still_frames`` frames: a hand over the very
  first frame, learnt as the board, would stay a "hand" wherever it had been long
  after it left (the board under warm light can pass for skin, so it is never
  absorbed).

Light is taken out of both comparisons: the change of each colour channel's log level
across the board is fitted by a smooth (quadratic) surface, robustly, and only what the
surface does not explain counts, so a lamp switched on or a cloud passing is not motion
(at most for the frame where it happens) and does not look like a hand. When the light
changed that much, the still board is learnt again once the board has been still.

Thresholds follow the noise: each comparison's own robust spread sets its threshold, so
a noisy camera does not see motion everywhere, with a floor against tiny changes. The
spread itself is never taken below one 8-bit level: in a compressed video of a still
board most cells are byte-identical from frame to frame, and a measured spread of
nothing would make a level or two of compression in a dark colour channel count as
motion.

:meth:`StillnessDetector.update` returns a :class:`Stillness`: whether the board has been
still for ``still_frames`` frames, the moving and covered cells (a mask over the board,
``cell_mm`` per cell), and, with a board model, the names of the covered elements, so the
pipeline emits an observation only when still and marks those elements unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.models import BoardModel
from vision.view import BoardView

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]
Mask = NDArray[np.bool_]


@dataclass(frozen=True)
class StillnessConfig:
    """Thresholds of the stillness detector; the reasons are beside each value."""

    # The board is sampled at 0.5 px per mm and averaged into 4 mm cells (two by two
    # samples, each already a blend of the frame's pixels round it): a finger is 15 mm
    # wide, so it still covers several cells, while sensor noise is averaged down and
    # a frame costs a millisecond or two.
    sample_px_per_mm: float = 0.5
    cell_mm: float = 4.0
    # A new view of the board (the tracker following a drifting camera) that shifts
    # the board by less than half a cell keeps what was learnt; more starts afresh.
    realign_mm: float = 2.0
    # Frames without motion before the board counts as still: at 30 frames a second, a
    # sixth of a second; enough for a hand's blur and its shadow to settle.
    still_frames: int = 5
    # A large change reaching the edge that has not moved at all for 15 frames, and is
    # not skin-coloured, is no arm: it is what is now on the board (many pieces changed
    # at once, say after a journey) and becomes part of the board compared with. A
    # skin-coloured one stays a hand resting on the board, however long it rests.
    absorb_frames: int = 15
    # A cell moved when its light-corrected change exceeds 5 robust standard
    # deviations of this comparison, and at least 6% (log units) in one colour.
    noise_factor: float = 5.0
    min_motion: float = 0.06
    # The spread is taken as at least one 8-bit level (levels run 0..1): a video of a
    # still board leaves most cells byte-identical from frame to frame, so the measured
    # spread can fall to nothing, and then a level or two of compression in a dark
    # colour channel (6% in log units near black) would count as motion.
    min_spread: float = 1.0 / 255.0
    # Against the last still board, a change under 10% is light or noise, not a thing.
    min_change: float = 0.10
    # Moving regions smaller than 2 cells are noise.
    min_moving_cells: int = 2
    # A changed region reaching the board's edge and larger than 20 cm^2 is an arm or
    # a hand (a tile is 4 to 12 cm^2, a full village of new tiles stays inside the
    # board); skin-coloured regions count from 6 cm^2 (fingers at the edge).
    hand_min_area_mm2: float = 2000.0
    skin_min_area_mm2: float = 600.0
    # Share of a region's cells that must look like skin to use the smaller size.
    skin_share: float = 0.5
    # Covered regions are grown by 8 mm: fingertips and the soft edge of a shadow.
    cover_margin_mm: float = 8.0
    # An element counts as covered when a tenth of it is.
    element_cover_share: float = 0.1
    # A light change of over 15% (mean of the fitted surface, log units) is reported,
    # and the still board is learnt again.
    light_change: float = 0.15
    # Robust surface fit: cells farther than 2.5 spreads are left out, twice.
    fit_rounds: int = 2
    fit_clip: float = 2.5


@dataclass(frozen=True)
class Stillness:
    """What the stillness detector says about one frame (see the module docstring).

    ``moving`` and ``covered`` are masks over the board, one cell per ``cell_mm``
    square (row 0 at the board's top edge); ``covered`` includes ``moving``."""

    still: bool
    still_frames: int
    hand: bool
    light_changed: bool
    moving: Mask
    covered: Mask
    covered_elements: tuple[str, ...]
    cell_mm: float
    message: str

    def covered_at(self, points_mm: FloatArray) -> NDArray[np.bool_]:
        """Whether each board point (N, 2) lies in a covered cell."""
        points = np.asarray(points_mm, np.float64).reshape(-1, 2)
        rows, cols = self.covered.shape
        j = np.clip((points[:, 0] // self.cell_mm).astype(int), 0, cols - 1)
        i = np.clip((points[:, 1] // self.cell_mm).astype(int), 0, rows - 1)
        return np.asarray(self.covered[i, j])


@dataclass
class _Memory:
    view: BoardView | None = None
    previous: NDArray[np.float32] | None = None
    background: NDArray[np.float32] | None = None
    still_frames: int = 0
    light_changed: bool = False
    in_view: Mask | None = None
    edge: Mask | None = None


class StillnessDetector:
    """Feed it every frame with the board's view (:meth:`update`); it says when the
    board is still and what is covered. ``size_mm`` is the board's size; ``model``,
    when given, names the covered elements."""

    def __init__(
        self,
        size_mm: tuple[float, float],
        model: BoardModel | None = None,
        config: StillnessConfig | None = None,
    ) -> None:
        self.config = config or StillnessConfig()
        self.size_mm = size_mm
        c = self.config.cell_mm
        self.shape = (max(1, round(size_mm[1] / c)), max(1, round(size_mm[0] / c)))
        self._design = _surface_design(self.shape)
        rows, cols = self.shape
        self._fit_cells = (
            np.arange(0, rows, 3)[:, None] * cols + np.arange(0, cols, 3)[None, :]
        ).reshape(-1)
        self._elements = _ElementCells(model, self.shape, c)
        self._memory = _Memory()

    def reset(self) -> None:
        """Forget everything seen: the next frame starts afresh."""
        self._memory = _Memory()

    def update(self, frame: Image, view: BoardView | None) -> Stillness:
        """Take the next frame and the board's view in it (``None`` when the board was
        not found: nothing is still then)."""
        memory = self._memory
        config = self.config
        if view is None:
            self.reset()
            return self._result(
                False,
                False,
                np.zeros(self.shape, bool),
                np.zeros(self.shape, bool),
                "board not located",
            )
        if view is not memory.view:
            if memory.view is None or self._shift_mm(memory.view, view) > config.realign_mm:
                # The board or the camera moved: the cells no longer line up.
                self._memory = memory = _Memory()
            memory.view = view
            memory.in_view, memory.edge = self._visible(view)
        cells, colours = self._cells(frame, view)
        moving = np.zeros(self.shape, bool)
        if memory.previous is not None:
            residual, _ = self._light_corrected(cells - memory.previous)
            moving = _regions(
                self._changed(residual, colours, config.min_motion), config.min_moving_cells
            )
        memory.previous = cells
        memory.still_frames = 0 if moving.any() else memory.still_frames + 1
        still = memory.still_frames >= config.still_frames
        if memory.background is None and still:
            memory.background = cells.copy()
        hands = np.zeros(self.shape, bool)
        memory.light_changed = False
        if memory.background is not None:
            residual, surface = self._light_corrected(cells - memory.background)
            memory.light_changed = float(np.abs(surface).mean()) > config.light_change
            changed = self._changed(residual, colours, config.min_change)
            hands = self._hands(changed, colours, memory.edge)
        margin = max(1, round(config.cover_margin_mm / config.cell_mm))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1, 2 * margin + 1))
        covered = cv2.dilate((hands | moving).astype(np.uint8), kernel).astype(bool)
        if still:
            assert memory.background is not None
            if memory.light_changed:
                memory.background = cells.copy()
            else:
                learnt = ~covered
                if memory.still_frames >= config.absorb_frames:
                    learnt = ~cv2.dilate(_skin(colours).astype(np.uint8), kernel).astype(bool)
                memory.background[learnt] = cells[learnt]
        hand = bool(hands.any())
        return self._result(
            still,
            hand,
            moving,
            covered,
            _message(still, hand, bool(moving.any()), memory.light_changed, memory.still_frames),
        )

    def _shift_mm(self, before: BoardView, after: BoardView) -> float:
        """How far the board's corners moved on the board between two views."""
        w, h = self.size_mm
        corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
        return float(
            np.linalg.norm(before.to_board(after.to_image(corners)) - corners, axis=1).max()
        )

    def _result(
        self, still: bool, hand: bool, moving: Mask, covered: Mask, message: str
    ) -> Stillness:
        names = self._elements.covered(covered, self.config.element_cover_share)
        memory = self._memory
        return Stillness(
            still,
            memory.still_frames,
            hand,
            memory.light_changed,
            moving,
            covered,
            names,
            self.config.cell_mm,
            message,
        )

    def _cells(
        self, frame: Image, view: BoardView
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The board seen from above in cells: log levels (for comparisons) and plain
        colours 0..1 (for the skin cue), each (rows, cols, 3)."""
        colour = (
            frame
            if frame.ndim == 3
            else np.asarray(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), np.uint8)
        )
        top = view.rectify(colour, self.size_mm, self.config.sample_px_per_mm)
        small = cv2.resize(
            top, (self.shape[1], self.shape[0]), interpolation=cv2.INTER_AREA
        ).astype(np.float32) / np.float32(255.0)
        return np.log(small + np.float32(1.0 / 64.0)), small

    def _visible(self, view: BoardView) -> tuple[Mask, Mask]:
        """The cells compared: those the camera sees, less the outermost ring, whose
        samples blend in the table round the board; and the ring just inside that,
        where arms come in (the board's edge, or the picture's edge across it)."""
        rows, cols = self.shape
        c = self.config.cell_mm
        xs, ys = np.meshgrid((np.arange(cols) + 0.5) * c, (np.arange(rows) + 0.5) * c)
        seen = view.visible(np.column_stack([xs.ravel(), ys.ravel()])).reshape(rows, cols)
        compared = _eroded(seen)
        return compared, compared & ~_eroded(compared)

    def _light_corrected(
        self, difference: NDArray[np.float32]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """``difference`` (log levels, per channel) less the smooth surface that light
        explains, and that surface. The surface is
        fitted on every third cell each way (it is smooth), leaving out, round after
        round, cells it does not explain (a hand, a piece)."""
        in_view = self._memory.in_view
        assert in_view is not None
        flat = difference.reshape(-1, 3)
        design = self._design[self._fit_cells]
        sample = flat[self._fit_cells]
        use = in_view.reshape(-1)[self._fit_cells].copy()
        coefficients = np.zeros((design.shape[1], 3), np.float32)
        for _ in range(self.config.fit_rounds + 1):
            if use.sum() < design.shape[1] * 3:
                break
            # Normal equations: six unknowns, as exact as lstsq here and far cheaper.
            terms = design[use]
            coefficients = np.linalg.solve(
                terms.T @ terms + np.eye(6, dtype=np.float32) * 1e-6, terms.T @ sample[use]
            ).astype(np.float32)
            residual = sample - design @ coefficients
            spread = _spread(residual[use])
            use &= np.all(
                np.abs(residual) <= self.config.fit_clip * spread + self.config.min_motion, axis=1
            )
        surface = (self._design @ coefficients).reshape(difference.shape)
        return difference - surface, surface

    def _changed(
        self, residual: NDArray[np.float32], colours: NDArray[np.float32], floor: float
    ) -> Mask:
        """Visible cells whose light-corrected change, in some channel, is above
        ``floor`` and above the noise. Sensor noise is even in linear levels, so in
        log levels it grows in dark cells: the change is weighed by the cell's level
        before it is compared with ``noise_factor`` robust spreads (at least
        ``min_spread`` each)."""
        in_view = self._memory.in_view
        assert in_view is not None
        weighted = residual * np.maximum(colours, np.float32(0.05))
        spread = max(
            self.config.min_spread,
            _spread(weighted.reshape(-1, 3)[self._fit_cells][in_view.reshape(-1)[self._fit_cells]]),
        )
        large = (np.abs(weighted) > self.config.noise_factor * spread) & (np.abs(residual) > floor)
        return np.asarray(large.any(axis=2) & in_view)

    def _hands(self, changed: Mask, colours: NDArray[np.float32], edge: Mask | None) -> Mask:
        """The changed regions that are arms or hands: large and reaching the edge,
        or skin-coloured, smaller and reaching the edge."""
        config = self.config
        cell_area = config.cell_mm**2
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            changed.astype(np.uint8), connectivity=4
        )
        hands = np.zeros(self.shape, bool)
        if count <= 1 or edge is None:
            return hands
        skin = _skin(colours)
        for label in range(1, count):
            area = stats[label, cv2.CC_STAT_AREA] * cell_area
            if area < config.skin_min_area_mm2:
                continue
            region = labels == label
            if not (region & edge).any():
                continue
            if area >= config.hand_min_area_mm2 or skin[region].mean() >= config.skin_share:
                hands |= region
        return hands


def _message(still: bool, hand: bool, moving: bool, light: bool, frames: int) -> str:
    if hand:
        return "hand over the board"
    if moving:
        return "something is moving over the board"
    if still and light:
        return "the light changed: the board is learnt again"
    if still:
        return f"board still for {frames} frames"
    return f"board settling ({frames} still frames)"


def _eroded(mask: Mask) -> Mask:
    """``mask`` less its outer ring of cells (the board's border counts as outside)."""
    padded = np.pad(mask.astype(np.uint8), 1)
    return np.asarray(cv2.erode(padded, np.ones((3, 3), np.uint8))[1:-1, 1:-1].astype(bool))


def _surface_design(shape: tuple[int, int]) -> NDArray[np.float32]:
    """The quadratic surface's terms at every cell, coordinates in -1..1."""
    rows, cols = shape
    grid_y, grid_x = np.meshgrid(
        np.linspace(-1.0, 1.0, rows), np.linspace(-1.0, 1.0, cols), indexing="ij"
    )
    x, y = grid_x.ravel(), grid_y.ravel()
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y]).astype(np.float32)


def _spread(residual: NDArray[np.float32]) -> float:
    """A robust standard deviation (median absolute deviation), over all channels."""
    if residual.size == 0:
        return 0.0
    return float(1.4826 * np.median(np.abs(residual - np.median(residual, axis=0))))


def _regions(mask: Mask, min_cells: int) -> Mask:
    """``mask`` without connected regions smaller than ``min_cells``."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        mask.astype(np.uint8), connectivity=8
    )
    keep = np.zeros(count, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= min_cells
    return np.asarray(keep[labels])


def _skin(colours: NDArray[np.float32]) -> Mask:
    """Cells whose colour could be skin under ordinary light: red above green above
    blue, clearly warm, neither black nor white (Kovac et al.'s rule, loosened for
    any skin tone)."""
    b, g, r = colours[:, :, 0], colours[:, :, 1], colours[:, :, 2]
    return np.asarray((r > g) & (g > b) & (r - b > 0.12) & (r > 0.2) & (b < 0.9))


class _ElementCells:
    """Which cells each element of a board model covers: its region rasterised, or the
    cell under its centre when it is smaller than a cell; kept flat, so the covered
    share of every element is one sum per frame."""

    def __init__(
        self,
        model: BoardModel | None,
        shape: tuple[int, int],
        cell_mm: float,
    ) -> None:
        self.names: list[str] = []
        indices: list[NDArray[np.intp]] = []
        for name, element in ({} if model is None else model.elements).items():
            mask = np.zeros(shape, np.uint8)
            corners = element.corners_mm() / cell_mm - 0.5
            cv2.fillConvexPoly(mask, np.rint(corners * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            flat = np.flatnonzero(mask)
            if len(flat) == 0:
                cx, cy = element.centre_mm
                flat = np.array(
                    [
                        min(shape[0] - 1, int(cy // cell_mm)) * shape[1]
                        + min(shape[1] - 1, int(cx // cell_mm))
                    ]
                )
            self.names.append(name)
            indices.append(flat)
        self.counts = np.array([len(i) for i in indices])
        self.starts = np.concatenate([[0], np.cumsum(self.counts)[:-1]]).astype(np.intp)
        self.cells = np.concatenate(indices) if indices else np.empty(0, np.intp)

    def covered(self, mask: Mask, share: float) -> tuple[str, ...]:
        """The elements of which at least ``share`` lies in ``mask``."""
        if not self.names:
            return ()
        sums = np.add.reduceat(mask.reshape(-1)[self.cells].astype(np.int32), self.starts)
        return tuple(
            n for n, s, c in zip(self.names, sums, self.counts, strict=True) if s >= share * c
        )
