"""Profiles: stored under the data folder, written atomically, refused whole when
damaged, foreign or from a newer version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.errors import ProfileError
from calibration.evaluate import bench_camera, exact_profile
from calibration.intrinsics import load_camera_profile, save_camera_profile
from calibration.profiles import (
    KIND_CAMERA,
    PROFILE_VERSION,
    camera_path,
    data_dir,
    list_profiles,
    profile_dir,
    read_document,
    write_atomic,
)


def test_the_data_folder_follows_the_environment(data_dir: Path) -> None:
    assert camera_path("kitchen") == data_dir / "profiles" / "kitchen" / "camera.json"
    assert list_profiles() == []
    save_camera_profile(exact_profile(bench_camera()), camera_path("kitchen"))
    assert list_profiles() == ["kitchen"]


def test_default_data_folder_is_the_apps_user_data_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("COMPANION_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.setattr("sys.platform", "linux")
    assert data_dir() == tmp_path / "companion"


@pytest.mark.parametrize("name", ["", "../x", "a/b", ".hidden", "x" * 65])
def test_bad_profile_names_are_refused(name: str) -> None:
    with pytest.raises(ProfileError, match="not allowed"):
        profile_dir(name)


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "file.json"
    write_atomic(path, b"first")
    write_atomic(path, b"second")
    assert path.read_bytes() == b"second"
    assert [p.name for p in path.parent.iterdir()] == ["file.json"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "file.json"
    write_atomic(path, b"old")

    def broken_replace(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", broken_replace)
    with pytest.raises(ProfileError, match="No space left"):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["file.json"]


def saved(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    path = tmp_path / "camera.json"
    save_camera_profile(exact_profile(bench_camera()), path)
    return path, json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"kind": "companion.camera", "version": 1, "image_si', "damaged \\(its text is not"),
        ("[1, 2, 3]", "not a companion profile"),
        ('{"kind": "companion.board", "version": 1}', "is a board profile, not a camera profile"),
        ('{"kind": "someone.else", "version": 1}', "is a 'someone.else', not a camera profile"),
        ('{"kind": "companion.camera", "version": 99}', "newer version"),
        ('{"kind": "companion.camera", "version": "1"}', "no valid version"),
    ],
)
def test_damaged_or_foreign_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "camera.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError, match=message):
        load_camera_profile(path)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("camera_matrix", [[1, 0, 0], [0, 1, 0]], "3x3 matrix"),
        ("distortion", [0.1, 0.2], "5 numbers"),
        ("rms_px", "small", "not a finite number"),
        ("rms_px", float("nan"), "NaN is not a number JSON allows"),
        ("image_size", [1280, 0], "whole pixels"),
        ("views", [{"label": "a", "error_px": 0.1}], "views\\[0\\].points"),
        ("target", None, "'target' is not text"),
    ],
)
def test_bad_fields_are_refused_never_half_loaded(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    path, data = saved(tmp_path)
    data[field] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError, match=message):
        load_camera_profile(path)


def test_missing_field_and_missing_file(tmp_path: Path) -> None:
    path, data = saved(tmp_path)
    del data["distortion"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ProfileError, match="'distortion' is missing"):
        load_camera_profile(path)
    with pytest.raises(ProfileError, match="no camera profile at"):
        load_camera_profile(tmp_path / "none.json")


def test_documents_carry_kind_and_version(tmp_path: Path) -> None:
    path, data = saved(tmp_path)
    assert data["kind"] == KIND_CAMERA and data["version"] == PROFILE_VERSION
    assert read_document(path, KIND_CAMERA)["image_size"] == [1280, 720]
