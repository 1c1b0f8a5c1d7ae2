import json
from pathlib import Path

import pytest

from vision.read_config import ReadConfig


def test_colours_of_a_configuration_file_are_read_as_blue_green_red(tmp_path: Path) -> None:
    path = tmp_path / "read.json"
    path.write_text(
        json.dumps(
            {"reference_bgr": [10, 20, 30], "palettes": {"square": {"dark": [False, [[1, 2, 3]]]}}}
        ),
        encoding="utf-8",
    )
    config = ReadConfig.from_json("shendao", path)
    assert config.reference_bgr == (10, 20, 30)
    assert config.palettes["square"]["dark"] == (False, ((1, 2, 3),))


@pytest.mark.parametrize("colour", [[10, 20], [1, 2, 3, 4], 7])
def test_a_colour_that_is_not_three_numbers_is_refused_naming_the_file(
    tmp_path: Path, colour: object
) -> None:
    path = tmp_path / "read.json"
    path.write_text(json.dumps({"reference_bgr": colour}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"read\.json: a colour must be three numbers"):
        ReadConfig.from_json("shendao", path)
