"""OpenCV's results as the numpy arrays they are.

OpenCV's type stubs give most results as ``cv2.typing.MatLike``, an array of any
integer or floating type. What a call really returns follows from its arguments (a
resize of an 8-bit image is 8-bit, ``cv2.Sobel(..., cv2.CV_32F, ...)`` is 32-bit
float), which the stubs cannot say. ``array_of`` states it at the call, and checks it,
so the code around keeps precise array types.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

ScalarT = TypeVar("ScalarT", bound=np.generic)


def array_of(dtype: type[ScalarT], result: object) -> NDArray[ScalarT]:
    """``result`` (an OpenCV result, or any array) as a numpy array of ``dtype``,
    without a copy.

    Raises ``TypeError`` when its elements are of another type: the caller's reading of
    OpenCV was wrong, and a silent conversion would hide it.
    """
    array = np.asarray(result)
    if array.dtype != np.dtype(dtype):
        raise TypeError(f"expected an array of {np.dtype(dtype)}, got one of {array.dtype}")
    return array.astype(dtype, copy=False)
