"""Recipe values are typed strictly: a wrong type is a one-line error naming the recipe key, never read as
something else (``protect_entities = "false"`` used to mean true)."""

from __future__ import annotations

import pytest

from noisecraft.building.recipe import load_recipe
from noisecraft.cli import main
from noisecraft.errors import ConfigError

GOOD = '''version = "1.0.0"
name = "t"
[[configs]]
source = "demo"
noise = ["keyboard"]
'''


def recipe(tmp_path, extra: str, top: str = ""):
    path = tmp_path / "r.toml"
    path.write_text(GOOD.replace('name = "t"\n', f'name = "t"\n{top}') + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize("line, message", [
    ('protect_entities = "false"', "'protect_entities' must be a boolean, got string 'false'"),
    ("data_file = 5", "'data_file' must be a string, got integer 5"),
    ("langs = [1]", "'langs' must be a non-empty list of strings, got [1]"),
    ('langs = "en"', "'langs' must be a non-empty list of strings, got 'en'"),
    ("split = 3", "'split' must be a string, got integer 3"),
    ("seeds = [true]", "'seeds' must be a non-empty list of integers, got [True]"),
    ("fields = []", "'fields' must be a non-empty list of strings, got []"),
    ("config_name = 1.5", "'config_name' must be a string, got number 1.5"),
])
def test_wrong_types_in_a_group_name_the_key(tmp_path, line, message):
    path = recipe(tmp_path, line + "\n")
    with pytest.raises(ConfigError) as exc:
        load_recipe(path)
    assert str(exc.value) == f"{path}, [[configs]] 1: {message}"


def test_wrong_top_level_type(tmp_path):
    path = recipe(tmp_path, "", top="description = 3\n")
    with pytest.raises(ConfigError, match=r"'description' must be a string, got integer 3"):
        load_recipe(path)


def test_set_into_a_value_that_is_not_a_table_is_a_one_line_error(tmp_path, capsys):
    path = recipe(tmp_path, "")
    assert main(["build", str(path), "--set", "name.x=1", "--out", str(tmp_path / "out")]) == 2
    [message] = capsys.readouterr().err.strip().splitlines()
    assert message == "noisecraft: error: --set name.x: name is a string, not a table: it has no 'x'"
    assert main(["build", str(path), "--set", "configs.0.split=3", "--out", str(tmp_path / "out")]) == 2
    assert "'split' must be a string, got integer 3" in capsys.readouterr().err


def test_well_typed_values_load(tmp_path):
    path = recipe(tmp_path, 'protect_entities = false\nlangs = ["en"]\nseeds = [0, 1]\nsplit = "validation"\n')
    assert load_recipe(path).table["configs"][0]["protect_entities"] is False
