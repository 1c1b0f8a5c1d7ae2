"""Exceptions of the calibration package, split by kind.

Every message names the file, view or value at fault and says what to do, so the
command line can print it unchanged as one line.
"""

from __future__ import annotations


class CalibrationError(Exception):
    """Base class of every error raised by ``calibration``."""


class ConfigError(CalibrationError, ValueError):
    """A configuration or board-geometry file that is unreadable or inconsistent."""


class ProfileError(CalibrationError):
    """A stored profile that is missing, damaged, of another kind, from a newer
    version, or made for other conditions (another image size, another camera profile).
    A profile that raises this is never partly used."""


class SourceError(CalibrationError):
    """An image, video, folder or camera that cannot be opened or read."""


class NotFoundError(CalibrationError):
    """Something the step needs is not visible in the image: the calibration target,
    the board's markers or outline, the pieces of a colour."""


class FitError(CalibrationError):
    """Too little or too poor evidence to fit a model: too few good views, points on a
    line, a colour model whose classes cannot be told apart."""
