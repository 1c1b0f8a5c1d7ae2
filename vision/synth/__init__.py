"""Synthetic photographs of the table, for tests and figures.

``vision.synth.camera`` is the optics: a pinhole camera with lens distortion, light and
sensor noise photographing flat textures on a table, with exact ground truth.
``vision.synth.table`` draws a game table in any state (an ``Observation``) through it:
the board, the pieces as solids, shadows, glare, hands and clutter, with each element's
place and visibility in the picture.
"""

from vision.synth.camera import (
    HARDEST_LIGHT,
    LIGHTS,
    Camera,
    Imaging,
    Light,
    PlanarTexture,
    Pose,
    Scene,
    plane_homography,
    project_points,
    render,
    render_views,
    table_texture,
)

__all__ = [
    "HARDEST_LIGHT",
    "LIGHTS",
    "Camera",
    "Imaging",
    "Light",
    "PlanarTexture",
    "Pose",
    "Scene",
    "plane_homography",
    "project_points",
    "render",
    "render_views",
    "table_texture",
]
