"""A pinhole camera with lens distortion that photographs flat things lying on a table.

This is the camera part of the photograph-like renderer: it knows optics, light and
sensor noise, and nothing about games. A scene is a list of flat textures
(:class:`PlanarTexture`: a table top, a calibration sheet, a board image) lying on the
table plane; :func:`render` photographs them with a :class:`Camera` at a :class:`Pose`
under a :class:`Light`, and :func:`project_points` says exactly where any point of the
table lands in that photograph, which is the ground truth tests compare against.

Conventions:

- Table plane coordinates are millimetres: X to the right and Y down the rows of an
  upright texture (towards a player sitting at its bottom edge), Z into the table.
  The origin is the table centre.
- The camera follows OpenCV: x right, y down, z forward; pixel centres at integer
  coordinates; distortion ``k1 k2 p1 p2 k3`` as in ``cv2.projectPoints``.
- Images are ``uint8`` BGR arrays, as ``cv2.imread`` gives them; textures are sRGB.
  Light colours are linear RGB triples (red first), because that is how people write them.

Everything is a pure function of its arguments; randomness (sensor noise, the table's
grain) comes from a seed, so every image replays exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.arrays import array_of

FloatArray = NDArray[np.float64]
Image = NDArray[np.uint8]

# Spacing (in output pixels) of the grid on which the inverse lens distortion is solved
# exactly; in between it is interpolated (bilinear). The inverse is smooth, so a 4-pixel
# grid keeps the interpolation error below 0.01 px for |k1| up to 0.5.
_UNDISTORT_GRID_STEP = 4
# Iterations of OpenCV's fixed-point inverse distortion; 5 (its default) leaves 0.15 px
# errors in the corners of a strongly distorted lens, 20 converge to 1e-9 px.
_UNDISTORT_ITERATIONS = 20
# A texture is shrunk before sampling when it holds more than this many texels per
# image pixel, so that far-away fine patterns average instead of aliasing.
_MAX_TEXELS_PER_PIXEL = 1.5
# Table coordinate given to pixels whose ray never meets the table: off every texture.
_FAR_AWAY_MM = 1e7
# A layer's outline is projected at this many points a side to find the part of the
# picture it can cover (lens distortion bends its edges between corners), plus a margin
# in pixels for the bend between points and the bilinear sampling at its edge.
_LAYER_OUTLINE_POINTS = 16
_LAYER_WINDOW_MARGIN_PX = 4
# What the camera sees where no texture lies (above the horizon, off the table): a
# dim grey wall, linear RGB.
BACKGROUND_RGB = (0.18, 0.18, 0.2)


@dataclass(frozen=True)
class Camera:
    """Pinhole intrinsics in pixels and Brown-Conrady lens distortion."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    k1: float = 0.0
    k2: float = 0.0
    p1: float = 0.0
    p2: float = 0.0
    k3: float = 0.0

    @classmethod
    def from_fov(cls, width: int, height: int, hfov_deg: float, **distortion: float) -> Camera:
        """A camera with square pixels, the principal point at the image centre and a
        horizontal field of view of ``hfov_deg``; ``distortion`` sets k1..k3, p1, p2."""
        if not 1.0 < hfov_deg < 179.0:
            raise ValueError(f"horizontal field of view {hfov_deg} is not in 1..179 degrees")
        f = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
        return cls(width, height, f, f, (width - 1) / 2.0, (height - 1) / 2.0, **distortion)

    @property
    def matrix(self) -> FloatArray:
        """The 3x3 camera matrix."""
        return np.array([[self.fx, 0.0, self.cx], [0.0, self.fy, self.cy], [0.0, 0.0, 1.0]])

    @property
    def distortion(self) -> FloatArray:
        """``(k1, k2, p1, p2, k3)``, OpenCV's order."""
        return np.array([self.k1, self.k2, self.p1, self.p2, self.k3])

    @property
    def size(self) -> tuple[int, int]:
        """``(width, height)`` in pixels."""
        return (self.width, self.height)

    def scaled(self, factor: int) -> Camera:
        """The same lens on a sensor with ``factor`` times more pixels per side (pixel
        centres stay at integer coordinates, so the principal point moves by a half
        pixel)."""
        return replace(
            self,
            width=self.width * factor,
            height=self.height * factor,
            fx=self.fx * factor,
            fy=self.fy * factor,
            cx=(self.cx + 0.5) * factor - 0.5,
            cy=(self.cy + 0.5) * factor - 0.5,
        )


@dataclass(frozen=True)
class Pose:
    """Where the camera stands, looking at a point on the table.

    ``elevation_deg``: angle between the line of sight and the table (90 = straight
    down). ``rotation_deg``: where the camera stands around the vertical through the
    look-at point: 0 on the +Y side (a player at the bottom edge of an upright texture
    sees it upright), 90 on the +X side. ``distance_mm``: from the camera's centre to
    the look-at point. ``roll_deg`` turns the camera about its line of sight.
    """

    elevation_deg: float = 90.0
    rotation_deg: float = 0.0
    distance_mm: float = 800.0
    look_at_mm: tuple[float, float] = (0.0, 0.0)
    roll_deg: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 < self.elevation_deg <= 90.0:
            raise ValueError(f"elevation {self.elevation_deg} is not in (0, 90] degrees")
        if self.distance_mm <= 0.0:
            raise ValueError(f"distance {self.distance_mm} mm is not positive")

    def centre_mm(self) -> FloatArray:
        """The camera's optical centre in table coordinates (Z negative: above)."""
        e = math.radians(self.elevation_deg)
        a = math.radians(self.rotation_deg)
        towards = np.array([math.sin(a), math.cos(a), 0.0], dtype=np.float64)
        look_at = np.array([self.look_at_mm[0], self.look_at_mm[1], 0.0], dtype=np.float64)
        up = np.array([0.0, 0.0, -math.sin(e)], dtype=np.float64)
        return look_at + self.distance_mm * (math.cos(e) * towards + up)

    def extrinsics(self) -> tuple[FloatArray, FloatArray]:
        """``(R, t)`` taking table coordinates to camera coordinates: ``x_c = R x + t``."""
        rotation, translation = _extrinsics(self)
        return np.array(rotation), np.array(translation)

    def _solve_extrinsics(self) -> tuple[FloatArray, FloatArray]:
        a = math.radians(self.rotation_deg)
        towards = np.array([math.sin(a), math.cos(a), 0.0])
        centre = self.centre_mm()
        look_at = np.array([self.look_at_mm[0], self.look_at_mm[1], 0.0])
        z_axis = (look_at - centre) / np.linalg.norm(look_at - centre)
        x_axis = np.cross(towards, z_axis)
        x_axis /= np.linalg.norm(x_axis)
        y_axis = np.cross(z_axis, x_axis)
        r = math.radians(self.roll_deg)
        x_rolled = math.cos(r) * x_axis + math.sin(r) * y_axis
        y_rolled = -math.sin(r) * x_axis + math.cos(r) * y_axis
        rotation = np.stack([x_rolled, y_rolled, z_axis])
        return rotation, -rotation @ centre


@lru_cache(maxsize=64)
def _extrinsics(pose: Pose) -> tuple[FloatArray, FloatArray]:
    """``pose.extrinsics()``, solved once per pose: a render projects hundreds of
    polygons from one pose. Callers must not change the arrays."""
    return pose._solve_extrinsics()


@lru_cache(maxsize=64)
def _rodrigues(pose: Pose) -> tuple[FloatArray, FloatArray]:
    """The pose as OpenCV's rotation vector and translation."""
    rotation, translation = _extrinsics(pose)
    rvec, _ = cv2.Rodrigues(rotation)
    return np.asarray(rvec, dtype=np.float64), translation


@dataclass(frozen=True, eq=False)
class PlanarTexture:
    """A flat picture lying on the table: ``image`` (uint8 BGR or grey, sRGB) printed
    at ``size_mm`` (width, height), centred at ``centre_mm`` and turned by ``angle_deg``
    (clockwise in a top-down view: the texture's x axis turns towards its y axis)."""

    image: Image
    size_mm: tuple[float, float]
    centre_mm: tuple[float, float] = (0.0, 0.0)
    angle_deg: float = 0.0

    def to_table(self, points_mm: FloatArray) -> FloatArray:
        """Table coordinates of points given in the texture's own millimetres (origin
        at its top-left corner, x right, y down), shape (N, 2)."""
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        local = points - np.array(self.size_mm) / 2.0
        a = math.radians(self.angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], dtype=np.float64)
        return local @ rot.T + np.array(self.centre_mm, dtype=np.float64)


@dataclass(frozen=True)
class Light:
    """Light falling on the table: a key light whose strength changes across the table
    and an even fill light, each with its own colour (linear RGB).

    The key light is ``key_level`` at the table centre and changes by ``unevenness``
    (0 = even, 1 = from nothing to double) over ``span_mm`` along the table direction
    ``direction_deg`` (0 = +X, 90 = +Y).
    """

    key_rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    key_level: float = 0.8
    fill_rgb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    fill_level: float = 0.2
    unevenness: float = 0.0
    direction_deg: float = 0.0
    span_mm: float = 600.0


# Named lights for tests and figures, from kind to hard. "hardest" is a warm tungsten
# lamp on one side of the table with cold window light filling the other side: the
# light turns from orange to blue across the board, and one side gets a quarter of the
# light of the other.
LIGHTS: dict[str, Light] = {
    "daylight": Light(),
    "warm": Light(
        key_rgb=(1.0, 0.78, 0.52),
        key_level=0.85,
        fill_rgb=(1.0, 0.85, 0.7),
        fill_level=0.1,
        unevenness=0.2,
        direction_deg=30.0,
    ),
    "dim": Light(key_level=0.3, fill_level=0.05, unevenness=0.3, direction_deg=120.0),
    "hardest": Light(
        key_rgb=(1.0, 0.68, 0.36),
        key_level=0.55,
        fill_rgb=(0.55, 0.7, 1.0),
        fill_level=0.25,
        unevenness=0.85,
        direction_deg=200.0,
        span_mm=600.0,
    ),
}
HARDEST_LIGHT = "hardest"


@dataclass(frozen=True)
class Imaging:
    """What the sensor and lens do to the light: exposure gain, defocus blur (Gaussian
    sigma in output pixels), vignetting (fraction of light lost in the image corners),
    read noise (sigma in 8-bit levels), photon noise (variance per 8-bit level of
    signal), optional JPEG compression, and supersampling (rays per pixel side)."""

    exposure: float = 1.0
    blur_sigma: float = 0.0
    vignetting: float = 0.0
    noise_sigma: float = 0.0
    shot_noise: float = 0.0
    jpeg_quality: int | None = None
    supersample: int = 2

    def __post_init__(self) -> None:
        if self.supersample < 1:
            raise ValueError(f"supersample {self.supersample} is below 1")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"JPEG quality {self.jpeg_quality} is not in 1..100")


@dataclass(frozen=True)
class Scene:
    """Textures on the table, bottom first; later ones cover earlier ones."""

    layers: tuple[PlanarTexture, ...]
    light: Light = field(default_factory=Light)


def plane_homography(camera: Camera, pose: Pose) -> FloatArray:
    """The 3x3 homography taking table millimetres ``(X, Y, 1)`` to ideal (undistorted)
    pixels of ``camera`` at ``pose``."""
    rotation, translation = pose.extrinsics()
    h = camera.matrix @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
    return np.asarray(h / h[2, 2])


def project_points(camera: Camera, pose: Pose, points_mm: FloatArray) -> FloatArray:
    """Pixel positions, lens distortion included, of table points (N, 2) or points
    above the table (N, 3; Z negative is up), shape (N, 2)."""
    points = np.asarray(points_mm, dtype=np.float64)
    if points.ndim != 2 or points.shape[1] not in (2, 3):
        raise ValueError(f"points must have shape (N, 2) or (N, 3), not {points.shape}")
    if points.shape[1] == 2:
        points = np.column_stack([points, np.zeros(len(points))])
    rvec, translation = _rodrigues(pose)
    pixels, _ = cv2.projectPoints(points, rvec, translation, camera.matrix, camera.distortion)
    return np.asarray(pixels.reshape(-1, 2), dtype=np.float64)


def table_texture(
    seed: int,
    size_mm: tuple[float, float] = (2400.0, 1800.0),
    px_per_mm: float = 0.5,
    rgb: tuple[float, float, float] = (0.36, 0.24, 0.14),
) -> PlanarTexture:
    """A wooden table top: grain running along X with seeded waviness and knots of
    colour, as sRGB ``rgb`` on average."""
    rng = np.random.default_rng(seed)
    width = max(2, round(size_mm[0] * px_per_mm))
    height = max(2, round(size_mm[1] * px_per_mm))
    coarse = rng.normal(size=(max(2, height // 40), max(2, width // 40))).astype(np.float32)
    waviness = cv2.resize(coarse, (width, height), interpolation=cv2.INTER_CUBIC)
    rows = np.arange(height, dtype=np.float32)[:, None]
    period = float(rng.uniform(6.0, 10.0)) * px_per_mm * 2.0
    grain = np.sin(2.0 * np.pi * (rows / period + 0.35 * waviness))
    fine = cv2.GaussianBlur(
        rng.normal(size=(height, width)).astype(np.float32), (0, 0), sigmaX=3.0, sigmaY=0.7
    )
    shade = 1.0 + 0.08 * grain + 0.12 * waviness + 0.05 * fine
    base = np.array(rgb[::-1], dtype=np.float32)
    image = np.clip(shade[:, :, None] * base * 255.0, 0, 255).astype(np.uint8)
    return PlanarTexture(image, size_mm)


Painter = Callable[[NDArray[np.float32], Camera], None]
"""Draws things standing on the table (pieces, hands) into the linear-BGR albedo seen
by a camera (the supersampled one), after the flat layers and before light and noise."""


def render(
    camera: Camera,
    pose: Pose,
    scene: Scene,
    imaging: Imaging | None = None,
    seed: int = 0,
    paint: Painter | None = None,
) -> Image:
    """Photograph ``scene`` with ``camera`` at ``pose``: a ``uint8`` BGR image of
    ``camera.size``. ``paint``, if given, draws solid things over the flat layers. The
    same arguments always give the same image."""
    imaging = imaging or Imaging()
    rng = np.random.default_rng(seed)
    ss = imaging.supersample
    fine_camera = camera.scaled(ss)
    table_x, table_y, seen = _table_coordinates(fine_camera, pose, _UNDISTORT_GRID_STEP * ss)
    albedo = np.empty((fine_camera.height, fine_camera.width, 3), dtype=np.float32)
    albedo[:] = np.array(BACKGROUND_RGB[::-1], dtype=np.float32)
    texels_per_mm_of_view = fine_camera.fx / pose.distance_mm
    for layer in scene.layers:
        y0, y1, x0, x1 = _layer_window(fine_camera, pose, layer)
        if y0 == y1 or x0 == x1:
            continue
        _paint_layer(
            albedo[y0:y1, x0:x1],
            layer,
            table_x[y0:y1, x0:x1],
            table_y[y0:y1, x0:x1],
            texels_per_mm_of_view,
        )
    if paint is not None:
        paint(albedo, fine_camera)
    if ss > 1:
        # Light varies slowly across the table: it is applied after averaging the rays.
        albedo = array_of(np.float32, cv2.resize(albedo, camera.size, interpolation=cv2.INTER_AREA))
        table_x = array_of(
            np.float32, cv2.resize(table_x, camera.size, interpolation=cv2.INTER_NEAREST)
        )
        table_y = array_of(
            np.float32, cv2.resize(table_y, camera.size, interpolation=cv2.INTER_NEAREST)
        )
        seen = cv2.resize(
            seen.astype(np.uint8), camera.size, interpolation=cv2.INTER_NEAREST
        ).astype(bool)
    radiance = albedo * _light_field(scene.light, table_x, table_y, seen)
    if imaging.exposure != 1.0:
        radiance *= np.float32(imaging.exposure)
    if imaging.vignetting > 0.0:
        radiance *= _vignette(camera, imaging.vignetting)[:, :, None]
    if imaging.blur_sigma > 0.0:
        radiance = array_of(np.float32, cv2.GaussianBlur(radiance, (0, 0), imaging.blur_sigma))
    levels = _encode_srgb(np.clip(radiance, 0.0, 1.0)) * np.float32(255.0)
    if imaging.noise_sigma > 0.0 or imaging.shot_noise > 0.0:
        sigma = np.sqrt(imaging.noise_sigma**2 + imaging.shot_noise * levels)
        levels = levels + sigma * rng.standard_normal(levels.shape, dtype=np.float32)
    image: Image = np.clip(np.rint(levels), 0, 255).astype(np.uint8)
    if imaging.jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, imaging.jpeg_quality])
        if not ok:
            raise RuntimeError("OpenCV could not encode a JPEG image")
        image = array_of(np.uint8, cv2.imdecode(data, cv2.IMREAD_COLOR))
    return image


@lru_cache(maxsize=2)
def _undistorted_normalised(
    camera: Camera, step: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """For every pixel of ``camera``, the ideal normalised coordinates (x/z, y/z) of the
    ray that the lens bends onto it, solved exactly every ``step`` pixels.

    It depends on the lens alone, not on the pose: the frames of a video share it, so
    the last two lenses' are kept (read-only arrays)."""
    xn, yn = _solve_undistorted(camera, step)
    xn.setflags(write=False)
    yn.setflags(write=False)
    return xn, yn


def _solve_undistorted(
    camera: Camera, step: int
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    width, height = camera.size
    if not np.any(camera.distortion):
        xs = (np.arange(width, dtype=np.float32) - np.float32(camera.cx)) / np.float32(camera.fx)
        ys = (np.arange(height, dtype=np.float32) - np.float32(camera.cy)) / np.float32(camera.fy)
        return (
            np.broadcast_to(xs[None, :], (height, width)).copy(),
            np.broadcast_to(ys[:, None], (height, width)).copy(),
        )
    grid_x = np.arange(-step, width + 2 * step, step, dtype=np.float64)
    grid_y = np.arange(-step, height + 2 * step, step, dtype=np.float64)
    gx, gy = np.meshgrid(grid_x, grid_y)
    pixels = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, _UNDISTORT_ITERATIONS, 1e-12)
    ideal = array_of(
        np.float64,
        cv2.undistortPoints(
            pixels,
            camera.matrix,
            camera.distortion,
            None,
            np.eye(3),
            np.eye(3),
            criteria,
        ),
    ).reshape(len(grid_y), len(grid_x), 2)
    # Separable bilinear interpolation, in numpy: cv2.remap would quantise positions to
    # 1/32 of a grid cell, an error of 0.12 px at this spacing.
    xn = _interpolate_rows(_interpolate_columns(ideal[:, :, 0], width, step), height, step)
    yn = _interpolate_rows(_interpolate_columns(ideal[:, :, 1], width, step), height, step)
    return xn, yn


def _interpolate_columns(coarse: FloatArray, width: int, step: int) -> FloatArray:
    """Values at every pixel column from samples every ``step`` columns starting at
    column ``-step``."""
    position = (np.arange(width, dtype=np.float64) + step) / step
    index = np.floor(position).astype(np.intp)
    weight = position - index
    return coarse[:, index] * (1.0 - weight) + coarse[:, index + 1] * weight


def _interpolate_rows(coarse: FloatArray, height: int, step: int) -> NDArray[np.float32]:
    """Values at every pixel row, in float32 (1e-7 of a normalised coordinate: well
    under 0.001 px), which halves the cost of this full-size step."""
    position = (np.arange(height, dtype=np.float64) + step) / step
    index = np.floor(position).astype(np.intp)
    weight = (position - index)[:, None].astype(np.float32)
    rows = coarse.astype(np.float32)
    low, high = rows[index], rows[index + 1]
    return np.asarray(low + (high - low) * weight, dtype=np.float32)


def _table_coordinates(
    camera: Camera, pose: Pose, step: int
) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.bool_]]:
    """Table millimetres seen by every pixel, and whether the pixel sees the table at
    all (rays that point above the horizon do not)."""
    xn, yn = _undistorted_normalised(camera, step)
    rotation, translation = pose.extrinsics()
    to_plane = np.linalg.inv(np.column_stack([rotation[:, 0], rotation[:, 1], translation]))
    m = to_plane.astype(np.float32)
    w = m[2, 0] * xn + m[2, 1] * yn + m[2, 2]
    seen = w > np.float32(1e-6)
    # Pixels that do not see the table get a point far outside every texture.
    inverse_w = np.where(
        seen, np.float32(1.0) / np.where(seen, w, np.float32(1.0)), np.float32(0.0)
    )
    table_x = (m[0, 0] * xn + m[0, 1] * yn + m[0, 2]) * inverse_w
    table_y = (m[1, 0] * xn + m[1, 1] * yn + m[1, 2]) * inverse_w
    table_x[~seen] = _FAR_AWAY_MM
    return table_x, table_y, seen


_SRGB_TO_LINEAR = np.array(
    [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (np.arange(256) / 255.0)],
    dtype=np.float32,
)


def _encode_srgb(linear: NDArray[np.float32]) -> NDArray[np.float32]:
    low = linear * np.float32(12.92)
    high = np.float32(1.055) * np.power(linear, np.float32(1.0 / 2.4)) - np.float32(0.055)
    return np.where(linear <= np.float32(0.0031308), low, high).astype(np.float32)


def _layer_window(camera: Camera, pose: Pose, layer: PlanarTexture) -> tuple[int, int, int, int]:
    """The rows and columns ``(y0, y1, x0, x1)`` of the picture that can show ``layer``:
    the box around its outline's projection, when the whole outline is well in front of
    the camera and near the picture (so the projection, lens included, is exact there);
    else the whole picture. A board fills a third of a picture, so painting only its box
    saves most of the sampling."""
    whole = (0, camera.height, 0, camera.width)
    w, h = layer.size_mm
    t = np.linspace(0.0, 1.0, _LAYER_OUTLINE_POINTS, endpoint=False)[:, None]
    corners = np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    outline = np.vstack(
        [a + t * (b - a) for a, b in zip(corners, np.roll(corners, -1, 0), strict=True)]
    )
    points = layer.to_table(outline)
    rotation, translation = _extrinsics(pose)
    depth = points @ rotation[2, :2] + translation[2]
    if depth.min() < 0.1 * pose.distance_mm:
        return whole
    pixels = project_points(camera, pose, points)
    low, high = pixels.min(axis=0), pixels.max(axis=0)
    if np.any(low < -np.array(camera.size)) or np.any(high > 2 * np.array(camera.size)):
        return whole
    margin = _LAYER_WINDOW_MARGIN_PX
    x0 = int(np.clip(np.floor(low[0]) - margin, 0, camera.width))
    x1 = int(np.clip(np.ceil(high[0]) + margin + 1, 0, camera.width))
    y0 = int(np.clip(np.floor(low[1]) - margin, 0, camera.height))
    y1 = int(np.clip(np.ceil(high[1]) + margin + 1, 0, camera.height))
    return (y0, y1, x0, x1) if x0 < x1 and y0 < y1 else (0, 0, 0, 0)


def _paint_layer(
    albedo: NDArray[np.float32],
    layer: PlanarTexture,
    table_x: NDArray[np.float32],
    table_y: NDArray[np.float32],
    pixels_per_mm: float,
) -> None:
    """Lay ``layer`` over ``albedo`` (linear BGR), where the pixels see it."""
    texture = layer.image
    tex_h, tex_w = texture.shape[:2]
    shrink = tex_w / layer.size_mm[0] / pixels_per_mm / _MAX_TEXELS_PER_PIXEL
    if shrink > 1.0:
        new_size = (max(2, round(tex_w / shrink)), max(2, round(tex_h / shrink)))
        texture = array_of(np.uint8, cv2.resize(texture, new_size, interpolation=cv2.INTER_AREA))
        tex_h, tex_w = texture.shape[:2]
    if texture.ndim == 2:
        texture = array_of(np.uint8, cv2.cvtColor(texture, cv2.COLOR_GRAY2BGR))
    # A fourth channel of ones: sampled with a zero border it becomes the coverage, and
    # the colour channels come out premultiplied by it, so edges blend smoothly.
    rgba = np.empty((tex_h, tex_w, 4), dtype=np.float32)
    rgba[:, :, :3] = _SRGB_TO_LINEAR[texture]
    rgba[:, :, 3] = 1.0
    a = math.radians(layer.angle_deg)
    sx = tex_w / layer.size_mm[0]
    sy = tex_h / layer.size_mm[1]
    # Table mm -> texel coordinates: undo the centre and the turn, scale, and put texel
    # centres at integer coordinates.
    cx, cy = layer.centre_mm
    ax, bx = sx * math.cos(a), sx * math.sin(a)
    ay, by = -sy * math.sin(a), sy * math.cos(a)
    offset_x = -(ax * cx + bx * cy) + tex_w / 2.0 - 0.5
    offset_y = -(ay * cx + by * cy) + tex_h / 2.0 - 0.5
    map_x = cv2.addWeighted(table_x, ax, table_y, bx, offset_x)
    map_y = cv2.addWeighted(table_x, ay, table_y, by, offset_y)
    sampled = cv2.remap(
        rgba,
        map_x,
        map_y,
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0.0, 0.0, 0.0, 0.0),
    )
    albedo *= 1.0 - sampled[:, :, 3:4]
    albedo += sampled[:, :, :3]


def _light_field(
    light: Light,
    table_x: NDArray[np.float32],
    table_y: NDArray[np.float32],
    seen: NDArray[np.bool_],
) -> NDArray[np.float32]:
    a = math.radians(light.direction_deg)
    along = (np.float32(math.cos(a)) * table_x + np.float32(math.sin(a)) * table_y) / np.float32(
        light.span_mm / 2.0
    )
    key = np.clip(1.0 + np.float32(light.unevenness) * np.clip(along, -1.0, 1.0), 0.0, None)
    key_bgr = np.array(light.key_rgb[::-1], dtype=np.float32) * np.float32(light.key_level)
    fill_bgr = np.array(light.fill_rgb[::-1], dtype=np.float32) * np.float32(light.fill_level)
    field_ = key[:, :, None] * key_bgr + fill_bgr
    field_[~seen] = 1.0
    return np.asarray(field_, dtype=np.float32)


def _vignette(camera: Camera, strength: float) -> NDArray[np.float32]:
    xs = np.arange(camera.width, dtype=np.float32) - np.float32(camera.cx)
    ys = np.arange(camera.height, dtype=np.float32) - np.float32(camera.cy)
    r2 = xs[None, :] ** 2 + ys[:, None] ** 2
    corner = (
        max(camera.cx, camera.width - 1 - camera.cx) ** 2
        + max(camera.cy, camera.height - 1 - camera.cy) ** 2
    )
    return (1.0 - np.float32(strength) * r2 / np.float32(corner)).astype(np.float32)


def render_views(
    camera: Camera,
    poses: Sequence[Pose],
    scene: Scene,
    imaging: Imaging | None = None,
    seed: int = 0,
) -> list[Image]:
    """Photographs of one scene from several poses; view ``i`` uses seed ``seed + i``."""
    return [render(camera, pose, scene, imaging, seed + i) for i, pose in enumerate(poses)]
