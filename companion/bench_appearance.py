"""Rendered tables of many worlds for the appearance reader: the sets it is fitted on,
validated on and tested on, the fit (``companion vision fit``) and the benchmark
(``companion bench appearance``).

A *setup* is one world (:mod:`vision.synth.world`) photographed by one camera at one
difficulty level: the player's calibration pictures (the empty board; the calibration
position with every bridge, stone and a few tiles of each colour, or ShenShi's with every
monk, cushion colour and tile face) and then pictures of
the game at several depths, under the level's light, with its hands, glare and clutter.
The light of play differs from the light of calibration.

Sets are separate by world seed and by kind of world:

- ``train``: the project's world and ``painted`` worlds, setup seeds 1-999;
- ``validation``: ``painted`` worlds, setup seeds 1000-1999 (used to choose nothing
  but to check the fit);
- ``test``: ``landscape`` worlds (a kind never used for fitting or choosing anything),
  setup seeds 2000 on, and the project's world at seeds 2000 on.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from companion.bench_vision import LEVEL_SPECS, LEVELS, Shot, _camera_and_pose, _state_observation

GAMES = ("shangrila", "shendao", "shenshi")
"""Games the appearance reader reads (those with worlds other than the project's)."""
KINDS_OF = {"shangrila": ("space", "bridge", "stone"), "shendao": ("square", "gate"),
            "shenshi": ("tile", "cushion", "monk")}
SETS = {
    "train": (("project", "painted"), 1),
    "validation": (("painted",), 1000),
    "test": (("landscape", "project"), 2000),
}
PLAYS_PER_SETUP = 3
CACHE_VERSION = 1
DEPTHS = (6, 20, 45, 80)


@dataclass(frozen=True)
class Setup:
    """One world, camera and level; its pictures follow from these alone."""

    kind: str
    seed: int
    level: str
    size: tuple[int, int]
    game: str = "shangrila"
    markers: bool = False
    """The printed corner markers stuck on the board (to find it in every picture)."""

    @property
    def key(self) -> str:
        return f"a{CACHE_VERSION}-{self.game}-{self.kind}-{self.seed}-{self.level}-" \
               f"{self.size[0]}x{self.size[1]}" + ("-markers" if self.markers else "")


def setups(name: str, count: int, levels: Sequence[str] = LEVELS,
           size: tuple[int, int] = (1280, 720), game: str = "shangrila",
           markers: bool = False) -> list[Setup]:
    """``count`` setups of set ``name``, spread over its kinds of world and ``levels``."""
    kinds, first = SETS[name]
    return [Setup(kinds[i % len(kinds)], first + i, levels[(i // len(kinds)) % len(levels)],
                  size, game, markers) for i in range(count)]


@dataclass
class Pictures:
    """A setup's pictures: calibration (empty, position) and play, with their truth."""

    setup: Setup
    empty: Any
    calibration: Any
    calibration_truth: Any
    plays: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    camera: dict[str, Any] = field(default_factory=dict)
    pose: dict[str, Any] = field(default_factory=dict)


def render_setup(setup: Setup) -> Pictures:
    from calibration.boards import board_geometry
    from engines.observation import Observation
    from vision.appearance import bare_value, calibration_layout
    from vision.models import referee_schema
    from vision.synth.camera import LIGHTS, Imaging
    from vision.synth.table import TableOptions, render_table
    from vision.synth.world import make_world

    spec = LEVEL_SPECS[setup.level]
    rng = np.random.default_rng([setup.seed, LEVELS.index(setup.level), 41])
    game = setup.game
    world = make_world(game, setup.kind, setup.seed)
    model = world.model
    shot = Shot(game, setup.level, 0, setup.seed, setup.size)
    camera, pose = _camera_and_pose(shot, rng, model.size_mm)
    imaging = Imaging(blur_sigma=spec.blur, noise_sigma=spec.noise, shot_noise=0.3,
                      vignetting=0.15, jpeg_quality=spec.jpeg)

    def light() -> Any:
        chosen = LIGHTS[spec.lights[int(rng.integers(len(spec.lights)))]]
        if setup.level == "hardest":
            chosen = replace(chosen, direction_deg=float(rng.uniform(0, 360)),
                             key_level=float(rng.uniform(0.45, 0.7)))
        return chosen

    def photograph(observation: Any, hands: int, calm: bool) -> Any:
        options = TableOptions(hands=hands, clutter=spec.clutter, markers=setup.markers,
                               glare=0.0 if calm else spec.glare,
                               placement_mm=spec.placement_mm,
                               placement_deg=3.0 * spec.placement_mm)
        return render_table(observation, camera, pose, light=light(), imaging=imaging,
                            options=options, seed=int(rng.integers(2 ** 31)), model=model,
                            art=world.art(), colours=world.colours)

    schema = referee_schema(game)
    empty_obs = Observation(schema, {e: (0 if e.endswith("^") else bare_value(schema.values[e]))
                                     for e in schema.elements if model.on_board(e)})
    layout = calibration_layout(schema, model, board_geometry(game).player_colours)
    # calibration happens once, under one light, with the camera in place
    calm_light = light()
    empty = render_table(empty_obs, camera, pose, light=calm_light, imaging=imaging,
                         options=TableOptions(clutter=spec.clutter, markers=setup.markers),
                         seed=setup.seed,
                         model=model, art=world.art(), colours=world.colours)
    calibration = render_table(layout, camera, pose, light=calm_light, imaging=imaging,
                               options=TableOptions(clutter=spec.clutter,
                                                    placement_mm=spec.placement_mm,
                                                    markers=setup.markers),
                               seed=setup.seed + 1, model=model, art=world.art(),
                               colours=world.colours)
    pictures = Pictures(setup, empty.image, calibration.image, layout.to_json()["readings"],
                        camera=asdict(camera), pose=asdict(pose))
    for index in range(PLAYS_PER_SETUP):
        depth = DEPTHS[(setup.seed + index) % len(DEPTHS)] + int(rng.integers(0, 4))
        observation = _state_observation(game, int(rng.integers(2 ** 31)), depth)
        hands = 1 if rng.random() < spec.hand_share else 0
        picture = photograph(observation, hands, calm=False)
        pictures.plays.append((picture.image, {
            "observation": observation.to_json()["readings"],
            "visible": picture.visible().to_json()["readings"], "hands": hands}))
    return pictures


def cached_pictures(folder: Path, setup: Setup) -> Pictures | None:
    """The pictures :func:`store_pictures` kept in ``folder``; ``None`` when they are
    not all there."""
    import cv2

    if not (folder / "truth.json").exists():
        return None
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    images = [cv2.imread(str(folder / f"{i}.png"), cv2.IMREAD_COLOR)
              for i in range(2 + len(truth["plays"]))]
    if any(image is None for image in images):
        return None
    return Pictures(setup, images[0], images[1], truth["calibration"],
                    list(zip(images[2:], truth["plays"], strict=True)),
                    truth["camera"], truth["pose"])


def store_pictures(folder: Path, pictures: Pictures) -> None:
    """Keep a setup's pictures and their truth in ``folder``."""
    import cv2

    folder.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate([pictures.empty, pictures.calibration,
                               *(p[0] for p in pictures.plays)]):
        cv2.imwrite(str(folder / f"{i}.png"), image)
    (folder / "truth.json").write_text(json.dumps({
        "calibration": pictures.calibration_truth, "plays": [p[1] for p in pictures.plays],
        "camera": pictures.camera, "pose": pictures.pose}), encoding="utf-8")


def load_setup(setup: Setup, cache: Path | None,
               progress: Callable[[str], None]) -> Pictures:
    """A setup's pictures, from the cache or rendered (and cached)."""
    folder = None if cache is None else cache / setup.key
    if folder is not None and (cached := cached_pictures(folder, setup)) is not None:
        return cached
    progress(f"rendering {setup.kind} world {setup.seed} ({setup.level})")
    pictures = render_setup(setup)
    if folder is not None:
        store_pictures(folder, pictures)
    return pictures


def _view(pictures: Pictures, size_mm: tuple[float, float]) -> Any:
    from companion.bench_vision import shot_view

    return shot_view({"camera": pictures.camera, "pose": pictures.pose}, size_mm)


def calibrated_reader(pictures: Pictures, fitted: Any = None) -> Any:
    """The appearance reader of a setup, calibrated on its calibration pictures."""
    from engines.observation import Observation
    from vision.appearance import AppearanceReader, calibrate, load_fitted
    from vision.models import referee_schema
    from vision.synth.world import make_world

    game = pictures.setup.game
    world = make_world(game, pictures.setup.kind, pictures.setup.seed)
    model = world.model
    schema = referee_schema(game)
    view = _view(pictures, model.size_mm)
    layout = Observation.from_json(schema, {"readings": pictures.calibration_truth})
    appearance = calibrate(game, model, pictures.empty, view,
                           [(pictures.calibration, view, layout)])
    fitted = fitted if fitted is not None else _untrained_or(load_fitted, game)
    return AppearanceReader(game, model, appearance, fitted, schema), view


def _untrained_or(load: Callable[[str], Any], game: str) -> Any:
    """The shipped weights of ``game``; untrained ones (every weight 0) before the first
    fit, which the fit's own examples are computed with (the weights play no part in
    the features)."""
    from vision.appearance import FEATURES, AppearanceError, FittedModel

    try:
        return load(game)
    except AppearanceError:
        return FittedModel(game, {k: np.zeros(len(FEATURES)) for k in KINDS_OF[game]}, {})


FOREIGN_PER_FRAME = 8
"""Foreign objects laid over each training picture (see :func:`with_foreign_objects`)."""


def with_foreign_objects(image: Any, reader: Any, view: Any, seed: int,
                         count: int = FOREIGN_PER_FRAME) -> tuple[Any, set[str]]:
    """A copy of ``image`` with ``count`` opaque blobs of random colour and grain laid
    over random elements (a hand, a phone, a cup: *something else*), and the elements
    they cover. Colours near one of the set's piece colours are not used, so that the
    label "something else" is never a piece's colour."""
    import cv2

    from vision.appearance import distance, linear, log_colour, sample

    rng = np.random.default_rng(seed)
    out = image.copy()
    sampling = reader.sampling(view)
    covered: set[str] = set()
    prototypes = [c for values in reader.appearance.colours.values() for c in values.values()]
    for _ in range(count):
        for _attempt in range(20):
            bgr = rng.integers(0, 256, 3)
            colour = log_colour(linear(bgr.astype(np.uint8)[None, :]))[0]
            if all(float(np.min(distance(colour, p))) > 0.8 for p in prototypes):
                break
        target = int(rng.integers(len(sampling.elements)))
        points = sampling.pixels[sampling.owner == target]
        centre = points.mean(axis=0)
        radius = float(np.linalg.norm(points - centre, axis=1).max()) * rng.uniform(1.1, 2.5)
        mask = np.zeros(out.shape[:2], np.uint8)
        axes = (max(2, int(radius)), max(2, int(radius * rng.uniform(0.6, 1.0))))
        cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, float(rng.uniform(0, 180)),
                    0, 360, 255, -1)
        grain = rng.normal(0, 12, out.shape).astype(np.float32)
        blob = np.clip(bgr[None, None, :].astype(np.float32) + grain, 0, 255).astype(np.uint8)
        out[mask > 0] = blob[mask > 0]
        inside = sample(mask, sampling.pixels)[:, 0] > 127
        for index, name in enumerate(sampling.elements):
            if inside[sampling.owner == index].mean() >= 0.6:
                covered.add(name)
    return out, covered


def iter_examples(pictures: Pictures, foreign: bool = False) -> Iterator[Any]:
    """The labelled examples of a setup's play pictures; with ``foreign``, also of each
    picture with foreign objects laid over it (the elements they cover labelled
    *something else*)."""
    from vision.appearance import examples

    reader, view = calibrated_reader(pictures)
    for number, (image, truth) in enumerate(pictures.plays):
        # an element the picture hides (a hand over more than half of it) is "something else"
        labels = {k: truth["visible"].get(k) for k in truth["observation"]}
        yield from examples(reader.element_features(image, view), labels)
        if foreign:
            changed, covered = with_foreign_objects(image, reader, view,
                                                    pictures.setup.seed * 100 + number)
            labels = {k: (None if k in covered else v) for k, v in labels.items()}
            yield from examples(reader.element_features(changed, view), labels)


def fit_command(args: argparse.Namespace) -> int:
    """``companion vision fit``: fit the appearance reader on the training set."""
    from vision.appearance import fit, fitted_path

    cache = Path(args.cache).expanduser() if args.cache else _default_cache()
    started = time.time()
    data = []
    chosen = setups("train", args.setups, size=_size(args.size), game=args.game)
    for i, setup in enumerate(chosen, 1):
        pictures = load_setup(setup, cache, lambda m: print(f"  {m}", flush=True))
        data.extend(iter_examples(pictures, foreign=True))
        print(f"[{i}/{len(chosen)}] {setup.kind} world {setup.seed} ({setup.level}): "
              f"{len(data)} examples", flush=True)
    provenance = {"command": f"companion vision fit --game {args.game} --setups {args.setups} "
                             f"--size {args.size}",
                  "set": "train", "kinds": list(SETS["train"][0]),
                  "setup_seeds": [s.seed for s in chosen], "examples": len(data),
                  "size": list(chosen[0].size)}
    model = fit(args.game, data, provenance)
    out = Path(args.output) if args.output else fitted_path(args.game)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} from {len(data)} examples in {time.time() - started:.0f} s")
    return 0


def _size(text: str) -> tuple[int, int]:
    from companion.vision_cli import _size as picture_size

    return picture_size(text)


def _default_cache() -> Path:
    return Path("~/.cache/companion/appearance").expanduser()


# --- the benchmark ---------------------------------------------------------------------------

@dataclass
class Score:
    elements: int = 0
    right: int = 0
    wrong: int = 0
    wrong_sure: int = 0
    not_shown: int = 0
    unsure: int = 0
    boards: int = 0
    perfect: int = 0
    sure: int = 0
    sure_right: int = 0

    def line(self) -> str:
        shown = max(1, self.right + self.wrong)
        return (f"{self.boards} boards, {self.elements} elements: "
                f"{100 * self.right / shown:.2f}% of shown right, "
                f"{100 * self.wrong_sure / max(1, self.elements):.3f}% wrong at >= 0.9, "
                f"unsure {100 * self.unsure / max(1, self.elements):.2f}%, "
                f"not shown {100 * self.not_shown / max(1, self.elements):.2f}%, "
                f"perfect {self.perfect}/{self.boards}, "
                f"right at >= 0.9: {100 * self.sure_right / max(1, self.sure):.2f}%")


def score_reading(score: Score, reading: Any, visible: dict[str, Any], schema: Any,
                  elements: Sequence[str]) -> None:
    from engines.observation import Observation

    truth = Observation.from_json(schema, {"readings": visible})
    wrong = 0
    for name in elements:
        if not truth[name].known:
            continue
        score.elements += 1
        got = reading.observation[name]
        if not got.known:
            if name in reading.unseen:
                score.not_shown += 1
            else:
                score.unsure += 1
            continue
        ok = got.value == truth[name].value and type(got.value) is type(truth[name].value)
        score.right += ok
        score.wrong += not ok
        wrong += not ok
        if got.confidence >= 0.9:
            score.sure += 1
            score.sure_right += ok
            score.wrong_sure += not ok
    score.boards += 1
    score.perfect += wrong == 0


def bench_command(args: argparse.Namespace) -> int:
    """``companion bench appearance``: the appearance reader, and the colour reader for
    comparison, on a set's pictures."""
    from vision.pipeline import reader_for

    if getattr(args, "heights", False):
        from companion.bench_heights import bench_command as bench_heights

        return bench_heights(args)
    cache = Path(args.cache).expanduser() if args.cache else _default_cache()
    import cv2

    cv2.setNumThreads(1)  # the figures are for one core
    results: dict[str, dict[str, Score]] = {}
    times: list[float] = []
    located = found = 0
    for setup in setups(args.set, args.setups, args.level or LEVELS, _size(args.size),
                        args.game, args.locate == "markers"):
        pictures = load_setup(setup, cache, lambda m: print(f"  {m}", flush=True))
        reader, view = calibrated_reader(pictures)
        # every element on the board, stack heights included
        elements = [e for e in reader.schema.elements
                    if e.removesuffix("^") in reader.model.elements]
        colour_reader = reader_for(args.game, reader.model)
        for image, truth in pictures.plays:
            seen_view = view
            if args.locate == "markers":
                from companion.bench_vision import lens_profile
                from vision.locate import Locator

                located += 1
                location = Locator(args.game, camera=lens_profile(
                    {"camera": pictures.camera})).locate(image)
                if location.view is None:
                    # every element the picture shows counts as not read (unsure)
                    from types import SimpleNamespace

                    from engines.observation import Observation

                    print(f"  board not found: {location.message}", flush=True)
                    nothing = SimpleNamespace(observation=Observation(reader.schema, {}),
                                              unseen=frozenset())
                    for name in ("appearance", "colour"):
                        score_reading(results.setdefault(name, {}).setdefault(
                            f"{setup.kind} {setup.level}", Score()), nothing,
                            truth["visible"], reader.schema, elements)
                    continue
                found += 1
                seen_view = location.view
            started = time.process_time()
            appearance_read = reader.read(image, seen_view)
            times.append(time.process_time() - started)
            for name, read in (("appearance", appearance_read),
                               ("colour", colour_reader.read(image, seen_view))):
                key = f"{setup.kind} {setup.level}"
                score_reading(results.setdefault(name, {}).setdefault(key, Score()), read,
                              truth["visible"], reader.schema, elements)
        print(f"{setup.kind} world {setup.seed} ({setup.level}) read", flush=True)
    lines = [f"companion bench appearance --game {args.game} --set {args.set} "
             f"--setups {args.setups} "
             f"--size {args.size}"]
    if located:
        lines.append(f"boards located by their markers: {found} of {located}")
    if times:
        lines.append(f"appearance reader: {1000 * float(np.median(times)):.1f} ms a frame "
                     f"(median, processor time, first frame of each view included: "
                     f"{1000 * max(times):.0f} ms at most)")
    for name, by_key in results.items():
        for key, score in sorted(by_key.items()):
            lines.append(f"{name:10s} {key:20s} {score.line()}")
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps({name: {k: asdict(s) for k, s in by.items()}
                                               for name, by in results.items()}, indent=1),
                                   encoding="utf-8")
    return 0


def add_fit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, default="shangrila")
    parser.add_argument("--setups", type=int, default=24,
                        help="training setups (world, camera, level) to fit on")
    parser.add_argument("--size", default="1280x720", help="picture size (default 1280x720)")
    parser.add_argument("--output", help="where to write the fitted weights "
                        "(default: the file shipped in the package)")
    parser.add_argument("--cache", help="folder of rendered pictures "
                        "(default ~/.cache/companion/appearance)")


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, default="shangrila")
    parser.add_argument("--set", choices=sorted(SETS), default="test")
    parser.add_argument("--setups", type=int, default=12)
    parser.add_argument("--level", action="append", choices=LEVELS)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--locate", choices=("truth", "markers"), default="truth",
                        help="where the board is: the picture's exact view (default), or "
                        "found by the corner markers stuck on it")
    parser.add_argument("--cache")
    parser.add_argument("--json")
    parser.add_argument("--heights", action="store_true",
                        help="the stack heights of Shangri-La, on tables of stacks of one "
                        "and two tiles seen from several elevations (docs/vision-bench.md)")
    parser.add_argument("--elevation", type=float, action="append",
                        help="with --heights: the camera's elevation in degrees (repeat; "
                        "default 90, 70 and 55)")


def add_fit_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion vision fit``."""
    fit = commands.add_parser(
        "fit", help="fit the camera's appearance reader on rendered tables of many worlds",
        description="Render the training set (tables of many made-up editions of the "
        "board, each calibrated as a player would) and fit the appearance reader's "
        "weights; the same setups give the same file (docs/reading.md).")
    add_fit_arguments(fit)
    fit.set_defaults(handler=fit_command)


def register_bench(bench_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion bench appearance``."""
    bench = bench_sub.add_parser(
        "appearance", help="the appearance reader on boards of worlds it was not fitted on",
        description="Read the pictures of a set (default: the test set, whose kind of "
        "world was never used for fitting) with the appearance reader, calibrated on each "
        "setup's own calibration pictures, and with the colour reader for comparison.")
    add_bench_arguments(bench)
    bench.set_defaults(handler=bench_command)
