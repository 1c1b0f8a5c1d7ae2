"""The held-out sets of the camera bench under their earlier module name, for the
benchmarks still reading them from here (``vision.evaluate`` holds them)."""

from vision.evaluate import LEVELS
from vision.evaluate.score import lens_profile
from vision.evaluate.sets import (
    LEVEL_SPECS,
    Shot,
    _camera_and_pose,
    _state_observation,
    shot_view,
)

__all__ = [
    "LEVELS",
    "LEVEL_SPECS",
    "Shot",
    "_camera_and_pose",
    "_state_observation",
    "lens_profile",
    "shot_view",
]
