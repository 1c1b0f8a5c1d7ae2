"""``companion vision ...``: the camera side. ``render`` plays random moves with an
engine and draws the resulting table as a photograph (vision/synth), with its ground
truth, for building and measuring the reading pipeline (docs/vision.md). ``read`` reads
one picture: locates the board, reads every element, prints what it saw and draws it
over the picture (docs/reading.md)."""

from __future__ import annotations

import argparse
import importlib
import json
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from calibration.errors import ProfileError, SourceError
from companion.cli import Subparsers, UsageError, check_players, picture_size
from engines import Dice, rules_class
from engines.jsontext import JSONTextError, read_json_file
from engines.observation import Observation
from vision.evaluate.appearance import (
    SETS,
    default_cache,
    iter_examples,
    iter_flat_examples,
    iter_square_examples,
    load_setup,
    setups,
)
from vision.models import GAMES, ModelError

RENDERABLE = GAMES
"""The games the renderer draws: those with a board model."""
MOST_PLAYERS = {"shangrila": 4, "shendao": 2, "shenshi": 4}
ORDER = 70
"""Where the group is listed in ``companion --help``."""


def register(sub: Subparsers) -> None:
    """Add ``companion vision`` and its commands."""
    parser = sub.add_parser(
        "vision",
        help="the camera: synthetic photographs of a table",
        description="The camera side of the referee (docs/vision.md).",
    )
    commands = parser.add_subparsers(dest="vision_command", required=True, metavar="COMMAND")
    render = commands.add_parser(
        "render",
        help="draw a table after random moves as a photograph",
        description="Play random moves with the engine, then draw the table as a camera "
        "would photograph it: the project's own drawing of the board, the pieces, light, "
        "lens, noise, hands and clutter. Everything follows --seed.",
    )
    render.add_argument("--game", required=True, choices=RENDERABLE)
    render.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    render.add_argument(
        "--moves", type=int, default=30, help="random moves played from the start (default 30)"
    )
    render.add_argument(
        "--players", type=int, help="number of players (default: the game's largest)"
    )
    render.add_argument(
        "--elevation",
        type=float,
        default=60.0,
        help="camera elevation in degrees, 35..90 (default 60)",
    )
    render.add_argument(
        "--rotation",
        type=float,
        default=0.0,
        help="where the camera stands around the table, degrees (default 0)",
    )
    render.add_argument(
        "--distance",
        type=float,
        default=800.0,
        help="camera distance to the board centre in mm (default 800)",
    )
    render.add_argument(
        "--size", default="1280x960", metavar="WxH", help="image size in pixels (default 1280x960)"
    )
    render.add_argument(
        "--fov", type=float, default=60.0, help="horizontal field of view in degrees (default 60)"
    )
    render.add_argument(
        "--distortion", type=float, default=-0.05, help="radial lens distortion k1 (default -0.05)"
    )
    render.add_argument(
        "--light", default="daylight", help="daylight, warm, dim or hardest (default daylight)"
    )
    render.add_argument("--hands", type=int, default=0, help="arms over the board")
    render.add_argument("--clutter", type=int, default=0, help="objects around the board")
    render.add_argument(
        "--placement",
        type=float,
        default=1.0,
        metavar="MM",
        help="how far off its spot a piece may lie (default 1 mm; it may "
        "also turn by up to 3 degrees per mm)",
    )
    render.add_argument("--glare", type=float, default=0.0, help="glare strength, 0..1")
    render.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma")
    render.add_argument("--blur", type=float, default=0.4, help="defocus blur sigma (px)")
    render.add_argument("--jpeg", type=int, help="JPEG quality (default: none)")
    render.add_argument(
        "--markers",
        action="store_true",
        help="stick the calibration corner markers on the board (so that "
        "'companion vision read' can locate it)",
    )
    render.add_argument(
        "--out",
        type=Path,
        default=Path("table.png"),
        metavar="FILE.png",
        help="where to write the picture (default table.png)",
    )
    render.add_argument(
        "--truth",
        type=Path,
        metavar="FILE.json",
        help="also write the ground truth: each element's value, image "
        "polygon and visible fraction",
    )
    render.set_defaults(handler=render_command)

    read = commands.add_parser(
        "read",
        help="read one picture of a table: every element, or unknown",
        description="Locate the board in a picture (by its corner markers, or with the "
        "exact view a rendered picture's truth file records), read every element with a "
        "confidence or abstain, print the observation and draw it over the picture. With "
        "--truth, compare with the truth (docs/reading.md).",
    )
    read.add_argument("image", type=Path, metavar="IMAGE", help="the picture (PNG or JPEG)")
    read.add_argument("--game", required=True, choices=RENDERABLE)
    read.add_argument(
        "--truth",
        type=Path,
        metavar="TRUTH.json",
        help="the truth 'companion vision render --truth' wrote: compare",
    )
    read.add_argument(
        "--locate",
        choices=("markers", "truth"),
        default="markers",
        help="find the board by its markers (default) or use the camera the truth file records",
    )
    read.add_argument(
        "--overlay",
        type=Path,
        metavar="FILE.png",
        help="where to draw what was read (default IMAGE-read.png)",
    )
    read.add_argument(
        "--all", action="store_true", help="print every element, not only what is on the board"
    )
    read.add_argument(
        "--profile",
        help="calibration profile to use: its lens, board "
        "reference, layout, set appearance or colour model (default: the "
        "default profile, when there is one)",
    )
    read.add_argument(
        "--no-profile",
        action="store_true",
        help="use no calibration profile: the board model and default colours",
    )
    read.set_defaults(handler=read_command)

    add_fit_command(commands)


def render_command(args: argparse.Namespace) -> int:
    from calibration.sources import shown  # deferred: loads OpenCV
    from vision.synth.camera import LIGHTS, Camera, Imaging, Pose  # deferred: loads OpenCV
    from vision.synth.table import TableOptions, render_table  # deferred: loads OpenCV

    if not 35.0 <= args.elevation <= 90.0:
        raise UsageError(f"--elevation {args.elevation} is not in 35..90 degrees")
    if args.distance <= 0:
        raise UsageError("--distance must be positive")
    if args.moves < 0:
        raise UsageError("--moves cannot be negative")
    if args.light not in LIGHTS:
        raise UsageError(f"--light {args.light!r}: one of {', '.join(LIGHTS)}")
    if args.jpeg is not None and not 1 <= args.jpeg <= 100:
        raise UsageError("--jpeg must be in 1..100")
    if args.out.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise UsageError("--out must end in .png or .jpg")
    if not 1.0 <= args.fov <= 179.0:
        raise UsageError(f"--fov {args.fov:g} is not in 1..179 degrees")
    width, height = picture_size(args.size)
    rules_type = rules_class(args.game)
    count = MOST_PLAYERS[args.game] if args.players is None else args.players
    check_players(args.game, count)
    players = rules_type.default_players(count)
    rules = rules_type(players)
    state = rules.initial_state()
    dice = Dice(args.seed)
    played = 0
    while played < args.moves and not state.is_over():
        state.play(state.random_move(dice))
        played += 1
    observation = importlib.import_module(f"engines.{args.game}.observation").expected(state)
    camera = Camera.from_fov(width, height, args.fov, k1=args.distortion)
    pose = Pose(args.elevation, args.rotation, args.distance)
    imaging = Imaging(
        blur_sigma=args.blur,
        noise_sigma=args.noise,
        shot_noise=0.3,
        vignetting=0.15,
        jpeg_quality=args.jpeg,
    )
    if args.placement < 0:
        raise UsageError("--placement cannot be negative")
    options = TableOptions(
        hands=args.hands,
        clutter=args.clutter,
        glare=args.glare,
        placement_mm=args.placement,
        placement_deg=3.0 * args.placement,
        markers=args.markers,
    )
    result = render_table(
        observation,
        camera,
        pose,
        light=LIGHTS[args.light],
        imaging=imaging,
        options=options,
        seed=args.seed,
    )
    _write(args.out, result.image)
    print(
        f"{shown(args.out)}: {args.game} after {played} moves, seen from {args.elevation:g} degrees"
    )
    if args.truth is not None:
        truth = {
            "game": args.game,
            "moves": played,
            "seed": args.seed,
            "observation": observation.to_json()["readings"],
            "camera": asdict(camera),
            "pose": asdict(pose),
            "elements": {
                name: {
                    "polygon": t.polygon.round(2).tolist(),
                    "top": t.top.round(2).tolist(),
                    "visible": round(t.visible, 4),
                }
                for name, t in result.truth.items()
            },
        }
        args.truth.write_text(json.dumps(truth), encoding="utf-8")
        print(f"{shown(args.truth)}: ground truth of {len(truth['elements'])} elements")
    return 0


def _write(path: Path, image: Any) -> None:
    from calibration.sources import write_image  # deferred: loads OpenCV

    try:
        write_image(path, image)
    except SourceError as error:
        raise UsageError(str(error)) from None


def _load_truth(path: Path) -> dict[str, Any]:
    try:
        data = read_json_file(path, "the truth file")
    except JSONTextError as error:
        raise UsageError(str(error)) from None
    if not isinstance(data, dict) or not isinstance(data.get("observation"), dict):
        raise UsageError(f"{path} is not a truth file of 'companion vision render --truth'")
    return data


def _truth_view(truth: dict[str, Any], path: Path, size_mm: tuple[float, float]) -> Any:
    from vision.synth.camera import Camera, Pose  # deferred: loads OpenCV
    from vision.view import truth_view  # deferred: loads OpenCV

    try:
        pose = truth["pose"]
        return truth_view(
            Camera(**truth["camera"]),
            Pose(
                pose["elevation_deg"],
                pose["rotation_deg"],
                pose["distance_mm"],
                tuple(pose["look_at_mm"]),
                pose["roll_deg"],
            ),
            size_mm,
        )
    except (KeyError, TypeError, ValueError):
        raise UsageError(
            f"{path} records no camera: render again with this version, or use --locate markers"
        ) from None


def read_command(args: argparse.Namespace) -> int:
    from calibration.sources import decode_image, shown  # deferred: loads OpenCV
    from vision.pipeline import draw_recognised  # deferred: loads OpenCV

    table = _table_profile(args.game, None if args.no_profile else args.profile, args.no_profile)
    try:
        image = decode_image(args.image)
    except OSError:
        image = None
    if image is None:
        raise UsageError(f"cannot read {shown(args.image)} as a picture (missing, or not PNG/JPEG)")
    try:
        model = table.model
        reader = table.reader()
    except ModelError as error:
        raise UsageError(str(error)) from None
    truth = _load_truth(args.truth) if args.truth is not None else None
    if args.locate == "truth":
        if truth is None:
            raise UsageError("--locate truth needs --truth TRUTH.json")
        view = _truth_view(truth, args.truth, model.size_mm)
        if view.image_size != (image.shape[1], image.shape[0]):
            raise UsageError(
                f"{args.image} is {image.shape[1]}x{image.shape[0]}, the truth's "
                f"camera {view.image_size[0]}x{view.image_size[1]}"
            )
    else:
        location = table.locator().locate(image)
        if location.view is None:
            print(f"{shown(args.image)}: {location.message}")
            return 1
        view = location.view
    for line in table.describe():
        print(line)
    reading = reader.read(image, view)
    if reading.problem is not None:
        print(f"{shown(args.image)}: cannot read the board: {reading.problem}")
        return 1
    observation = reading.observation
    _print_observation(observation, reading.abstained, args.all)
    overlay = args.overlay or args.image.with_name(args.image.stem + "-read.png")
    _write(overlay, draw_recognised(image, view, observation, model, legend=True))
    known = reading.read
    print(
        f"read {known} of {len(observation)} elements in {reading.seconds * 1000:.1f} ms; "
        f"overlay: {shown(overlay)}"
    )
    if truth is not None:
        wanted = Observation.from_json(observation.schema, {"readings": truth["observation"]})
        return _compare(observation, wanted, truth.get("elements", {}))
    return 0


def _table_profile(game: str, profile: str | None, none: bool) -> Any:
    """What the calibration ``profile`` (the default one for None) gives the camera for
    ``game``: nothing with ``none``. A profile named on the command line must exist and
    be readable."""
    from vision.table_profile import TableProfile, load_table_profile  # deferred: loads OpenCV

    if none:
        return TableProfile(
            game, None, notes=["no profile used: the camera reads with its default colours"]
        )
    try:
        return load_table_profile(game, profile)
    except ProfileError as error:
        raise UsageError(f"--profile {profile}: {error}") from None


def _print_observation(observation: Any, abstained: dict[str, str], everything: bool) -> None:
    """One line per element on the board (empty and absent ones too with ``everything``),
    then the elements not read and why."""
    for element in observation:
        reading = observation[element]
        if not reading.known:
            continue
        if not everything and reading.value in ("empty", "none", "open", False, 0):
            continue
        print(f"  {element}: {reading.value} ({reading.confidence:.2f})")
    unknown = [e for e in observation if not observation[e].known and e in abstained]
    if unknown:
        print(f"not read ({len(unknown)}):")
        for element in unknown:
            print(f"  {element}: {abstained[element]}")


def _compare(seen: Any, wanted: Any, elements: dict[str, Any]) -> int:
    """Print how the reading compares with the truth; 0 when nothing is wrong."""
    right = wrong = unread = hidden = 0
    for element in wanted:
        want = wanted[element]
        off_board = bool(elements) and element not in elements
        if (
            not want.known
            or off_board
            or (element in elements and elements[element].get("visible", 1.0) < 0.5)
        ):
            hidden += 1
            continue
        got = seen[element]
        if not got.known:
            unread += 1
        elif got.value == want.value and type(got.value) is type(want.value):
            right += 1
        else:
            wrong += 1
            print(
                f"  WRONG {element}: is {want.value!r}, read {got.value!r} ({got.confidence:.2f})"
            )
    print(
        f"against the truth: {right} right, {wrong} wrong, {unread} not read, "
        f"{hidden} hidden or off the board"
    )
    return 1 if wrong else 0


def fit_command(args: argparse.Namespace) -> int:
    """``companion vision fit``: fit the appearance reader on the training set."""
    import numpy as np  # deferred: only to fit

    from vision.appearance import fit, fitted_path, load_fitted  # deferred: loads OpenCV
    from vision.appearance_core import AppearanceError  # deferred: loads OpenCV
    from vision.appearance_flat import flat_game  # deferred: loads OpenCV
    from vision.appearance_net import stacked  # deferred: loads OpenCV
    from vision.fit_network import (  # deferred: loads OpenCV
        FitError,
        fit_flat_network,
        fit_square_network,
    )

    if args.networks < 0:
        raise UsageError("--networks must be 0 or more")
    if args.setups < 1:
        raise UsageError("--setups must be at least 1")
    network_setups = getattr(args, "network_setups", None)
    if network_setups is not None and network_setups < 1:
        raise UsageError("--network-setups must be at least 1")
    networks = args.networks if stacked(args.game) or flat_game(args.game) else 0
    only = bool(getattr(args, "networks_only", False))
    if only and not networks:
        raise UsageError(
            "--networks-only fits the square networks of ShenShi or Shendao: "
            "give --networks 1 or more"
        )
    network_setups = network_setups if network_setups is not None else args.setups
    out = Path(args.output) if args.output else fitted_path(args.game)
    kept = None
    if only:
        try:
            kept = load_fitted(args.game, out)
        except AppearanceError as error:
            raise UsageError(f"--networks-only keeps the weights of {out}: {error}") from None
    cache = Path(args.cache).expanduser() if args.cache else default_cache()
    started = time.time()
    data: list[Any] = []
    squares: list[Any] = []
    flats: list[Any] = []
    count = network_setups if only else max(args.setups, network_setups if networks else 0)
    chosen = setups("train", count, size=picture_size(args.size), game=args.game)
    for i, setup in enumerate(chosen, 1):
        pictures = load_setup(setup, cache, lambda m: print(f"  {m}", flush=True))
        if i <= args.setups and not only:
            data.extend(iter_examples(pictures, foreign=True))
        if networks and i <= network_setups:
            if stacked(args.game):
                squares.extend(iter_square_examples(pictures, foreign=True))
            else:
                flats.extend(iter_flat_examples(pictures, foreign=True))
        print(
            f"[{i}/{len(chosen)}] {setup.kind} world {setup.seed} ({setup.level}): "
            f"{len(data)} examples"
            + (f", {sum(len(y) for _, y, _ in flats)} squares" if flats else ""),
            flush=True,
        )
    if only:
        command = (
            f"companion vision fit --game {args.game} --size {args.size} --networks "
            f"{args.networks} --network-setups {network_setups} --networks-only"
        )
    else:
        command = (
            f"companion vision fit --game {args.game} --setups {args.setups} --size {args.size}"
        )
        if stacked(args.game) or flat_game(args.game):
            command += f" --networks {args.networks}"
            if networks and network_setups != args.setups:
                command += f" --network-setups {network_setups}"
    if kept is not None:
        model = kept
    else:
        provenance = {
            "command": command,
            "set": "train",
            "kinds": list(SETS["train"][0]),
            "setup_seeds": [s.seed for s in chosen[: args.setups]],
            "examples": len(data),
            "size": list(chosen[0].size),
        }
        model = fit(args.game, data, provenance)
    try:
        if squares:
            network = fit_square_network(
                args.game, squares, networks, lambda m: print(f"  {m}", flush=True)
            )
            model = replace(model, network=network)
        if flats:
            flat = fit_flat_network(
                np.concatenate([m for m, _, _ in flats]).astype(np.float32),
                np.concatenate([y for _, y, _ in flats]),
                flats[0][2],
                networks,
                progress=lambda m: print(f"  {m}", flush=True),
            )
            flat.provenance["command"] = command
            flat.provenance["setup_seeds"] = [s.seed for s in chosen[:network_setups]]
            model = replace(model, flat=flat)
    except FitError as error:
        raise UsageError(str(error)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out} from {len(data)} examples in {time.time() - started:.0f} s")
    return 0


def add_fit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=GAMES, default="shangrila")
    parser.add_argument(
        "--setups", type=int, default=24, help="training setups (world, camera, level) to fit on"
    )
    parser.add_argument("--size", default="1280x720", help="picture size (default 1280x720)")
    parser.add_argument(
        "--networks",
        type=int,
        default=1,
        help="ShenShi and Shendao: square networks fitted from different starts and "
        "averaged (default 1; 0 for none: the classifiers alone)",
    )
    parser.add_argument(
        "--network-setups",
        type=int,
        help="training setups the square networks are fitted on (default: --setups)",
    )
    parser.add_argument(
        "--networks-only",
        action="store_true",
        help="keep the weights of the file written (--output, or the shipped file) and fit "
        "only the square networks",
    )
    parser.add_argument(
        "--output",
        help="where to write the fitted weights (default: the file shipped in the package)",
    )
    parser.add_argument(
        "--cache", help="folder of rendered pictures (default ~/.cache/companion/appearance)"
    )


def add_fit_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion vision fit``."""
    fit = commands.add_parser(
        "fit",
        help="fit the camera's appearance reader on rendered tables of many worlds",
        description="Render the training set (tables of many made-up editions of the "
        "board, each calibrated as a player would) and fit the appearance reader's "
        "weights; the same setups give the same file (docs/reading.md).",
    )
    add_fit_arguments(fit)
    fit.set_defaults(handler=fit_command)
