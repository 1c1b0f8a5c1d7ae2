"""``companion vision ...``: the camera side. ``render`` plays random moves with an
engine and draws the resulting table as a photograph (vision/synth), with its ground
truth, for building and measuring the reading pipeline (docs/vision.md)."""

from __future__ import annotations

import argparse
import importlib
import json
from pathlib import Path

import cv2

from companion.cli import UsageError
from engines import Dice, rules_class

RENDERABLE = ("shangrila", "shendao")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``companion vision`` and its commands."""
    parser = sub.add_parser(
        "vision", help="the camera: synthetic photographs of a table",
        description="The camera side of the referee (docs/vision.md).")
    commands = parser.add_subparsers(dest="vision_command", required=True, metavar="COMMAND")
    render = commands.add_parser(
        "render", help="draw a table after random moves as a photograph",
        description="Play random moves with the engine, then draw the table as a camera "
        "would photograph it: the project's own drawing of the board, the pieces, light, "
        "lens, noise, hands and clutter. Everything follows --seed.")
    render.add_argument("--game", required=True, choices=RENDERABLE)
    render.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    render.add_argument("--moves", type=int, default=30,
                        help="random moves played from the start (default 30)")
    render.add_argument("--players", type=int, help="number of players (default: the "
                        "game's largest)")
    render.add_argument("--elevation", type=float, default=60.0,
                        help="camera elevation in degrees, 35..90 (default 60)")
    render.add_argument("--rotation", type=float, default=0.0,
                        help="where the camera stands around the table, degrees (default 0)")
    render.add_argument("--distance", type=float, default=800.0,
                        help="camera distance to the board centre in mm (default 800)")
    render.add_argument("--size", default="1280x960", metavar="WxH",
                        help="image size in pixels (default 1280x960)")
    render.add_argument("--fov", type=float, default=60.0,
                        help="horizontal field of view in degrees (default 60)")
    render.add_argument("--distortion", type=float, default=-0.05,
                        help="radial lens distortion k1 (default -0.05)")
    render.add_argument("--light", default="daylight",
                        help="daylight, warm, dim or hardest (default daylight)")
    render.add_argument("--hands", type=int, default=0, help="arms over the board")
    render.add_argument("--clutter", type=int, default=0, help="objects around the board")
    render.add_argument("--placement", type=float, default=1.0, metavar="MM",
                        help="how far off its spot a piece may lie (default 1 mm; it may "
                        "also turn by up to 3 degrees per mm)")
    render.add_argument("--glare", type=float, default=0.0, help="glare strength, 0..1")
    render.add_argument("--noise", type=float, default=2.0, help="sensor noise sigma")
    render.add_argument("--blur", type=float, default=0.4, help="defocus blur sigma (px)")
    render.add_argument("--jpeg", type=int, help="JPEG quality (default: none)")
    render.add_argument("--out", type=Path, default=Path("table.png"), metavar="FILE.png",
                        help="where to write the picture (default table.png)")
    render.add_argument("--truth", type=Path, metavar="FILE.json",
                        help="also write the ground truth: each element's value, image "
                        "polygon and visible fraction")
    render.set_defaults(handler=render_command)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size {text!r} is not WIDTHxHEIGHT") from None
    if not (16 <= w <= 8000 and 16 <= h <= 8000):
        raise UsageError(f"--size {text!r} is out of range (16..8000 pixels a side)")
    return w, h


def render_command(args: argparse.Namespace) -> int:
    from vision.synth.camera import LIGHTS, Camera, Imaging, Pose
    from vision.synth.table import TableOptions, render_table

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
    width, height = _size(args.size)
    rules_type = rules_class(args.game)
    most = 4 if args.game == "shangrila" else 2
    players = rules_type.default_players(args.players or most)
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
    imaging = Imaging(blur_sigma=args.blur, noise_sigma=args.noise, shot_noise=0.3,
                      vignetting=0.15, jpeg_quality=args.jpeg)
    if args.placement < 0:
        raise UsageError("--placement cannot be negative")
    options = TableOptions(hands=args.hands, clutter=args.clutter, glare=args.glare,
                           placement_mm=args.placement, placement_deg=3.0 * args.placement)
    result = render_table(observation, camera, pose, light=LIGHTS[args.light],
                          imaging=imaging, options=options, seed=args.seed)
    if not cv2.imwrite(str(args.out), result.image):
        raise UsageError(f"cannot write {args.out}")
    print(f"{args.out}: {args.game} after {played} moves, seen from {args.elevation:g} "
          f"degrees")
    if args.truth is not None:
        truth = {
            "game": args.game, "moves": played, "seed": args.seed,
            "observation": observation.to_json()["readings"],
            "elements": {name: {"polygon": t.polygon.round(2).tolist(),
                                "top": t.top.round(2).tolist(),
                                "visible": round(t.visible, 4)}
                         for name, t in result.truth.items()},
        }
        args.truth.write_text(json.dumps(truth), encoding="utf-8")
        print(f"{args.truth}: ground truth of {len(truth['elements'])} elements")
    return 0
