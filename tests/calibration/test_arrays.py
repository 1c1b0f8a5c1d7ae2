import cv2
import numpy as np
import pytest

from calibration.arrays import array_of


def test_an_opencv_result_of_the_stated_type_comes_back_as_the_same_pixels() -> None:
    image = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    typed = array_of(np.uint8, grey)
    assert typed.dtype == np.uint8
    assert np.shares_memory(typed, grey)
    assert np.array_equal(typed, grey)


def test_a_result_of_another_type_is_refused_not_converted() -> None:
    floats = cv2.GaussianBlur(np.ones((5, 5), np.float32), (3, 3), 0)
    with pytest.raises(TypeError, match="expected an array of uint8, got one of float32"):
        array_of(np.uint8, floats)
