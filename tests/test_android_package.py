"""buildozer.spec against what the code needs on Android: the recipes it imports, the
permissions and features, the USB intent filter and its device filter listing exactly
the reference board's ids, values buildozer accepts, and the entry point."""

from __future__ import annotations

import configparser
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from firmware_bridge.android_serial import REFERENCE_BOARDS

ROOT = Path(__file__).resolve().parents[1]
ORIENTATIONS = {"landscape", "portrait", "landscape-reverse", "portrait-reverse", "all"}
"""The values buildozer 1.6's configuration check accepts."""
ANDROID = "{http://schemas.android.com/apk/res/android}"


def _spec() -> configparser.SectionProxy:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "buildozer.spec", encoding="utf-8")
    return parser["app"]


def _list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def test_the_recipes_the_code_imports_on_android() -> None:
    requirements = {r.split("==")[0] for r in _list(_spec()["requirements"])}
    # kivy and its camera provider, cv2 for the frames, pyjnius for the camera,
    # speech and USB classes, usb4a + usbserial4a (over pyserial) for the board,
    # "android" for permissions and the broadcast receiver
    assert {
        "python3",
        "kivy",
        "numpy",
        "opencv",
        "pyjnius",
        "pyserial",
        "usb4a",
        "usbserial4a",
        "android",
    } <= requirements
    assert "lib-dynload/termios.so" in _list(_spec()["android.whitelist"])


def test_permissions_features_and_orientation() -> None:
    app = _spec()
    assert "CAMERA" in _list(app["android.permissions"])
    assert "android.hardware.usb.host" in _list(app["android.features"])
    orientations = set(_list(app["orientation"]))
    assert orientations <= ORIENTATIONS and {"landscape", "portrait"} <= orientations


def test_the_usb_device_filter_lists_the_reference_board() -> None:
    app = _spec()
    intent = (ROOT / app["android.manifest.intent_filters"]).read_text(encoding="utf-8")
    # the file is a fragment of the activity: wrap it to parse it
    fragment = ElementTree.fromstring(
        f'<activity xmlns:android="{ANDROID[1:-1]}">{intent}</activity>'
    )
    actions = [a.get(f"{ANDROID}name") for a in fragment.iter("action")]
    assert actions == ["android.hardware.usb.action.USB_DEVICE_ATTACHED"]
    [meta] = fragment.iter("meta-data")
    [resource] = _list(app["android.res_xml"])
    assert meta.get(f"{ANDROID}resource") == f"@xml/{Path(resource).stem}"
    devices = ElementTree.parse(ROOT / resource).getroot().iter("usb-device")
    listed = {(int(d.get("vendor-id", "")), int(d.get("product-id", ""))) for d in devices}
    assert listed == set(REFERENCE_BOARDS)


def test_the_entry_point() -> None:
    assert _spec()["source.dir"] == "."
    assert "run_app()" in (ROOT / "main.py").read_text(encoding="utf-8")
