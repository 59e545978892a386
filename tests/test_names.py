"""Config and split names: a split name follows datasets' own rule, and a generated config name is always valid."""

from __future__ import annotations

import re

import pytest

import noisecraft as nc
from noisecraft.errors import ConfigError
from noisecraft.pipeline import default_config_name
from noisecraft.repo import NAME, check_name, valid_config_name


@pytest.mark.parametrize("split", ["validation", "validation_matched", "train.v2", "test2"])
def test_split_names_datasets_loads_pass(split):
    from datasets.naming import _split_re

    assert re.match(_split_re, split) and check_name("split", split) == split


@pytest.mark.parametrize("split", ["my-split", "a..b", ".hidden", "x y", "é-1"])
def test_split_names_datasets_refuses_are_refused(split):
    with pytest.raises(ConfigError, match="invalid split name"):
        check_name("split", split)


def test_build_refuses_a_bad_split_before_any_work(tmp_path):
    with pytest.raises(ConfigError, match="invalid split name 'my-split'"):
        nc.build("demo", "keyboard", out=tmp_path / "out", split="my-split", progress=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("generated", ["glue-sst2-en-grammar-typesNn,SVA", "glue-sst2-en-grammar-tagger spacy:en_core_web_sm",
                                       "xquad-en-" + "-".join(["keyboard-rate0.1"] * 20), "..x..y", "-a/b\\c"])
def test_generated_config_names_are_always_valid(generated):
    name = valid_config_name(generated)
    assert NAME.fullmatch(name) and ".." not in name and check_name("config", name) == name


def test_long_generated_names_stay_apart():
    a, b = ("xquad-en-" + "-".join([f"keyboard-rate0.{i}"] * 20) for i in (1, 2))
    assert valid_config_name(a) != valid_config_name(b) and len(valid_config_name(a)) == 100


def test_a_long_chain_gets_a_valid_default_name():
    chain = nc.noise(" | ".join(["keyboard(rate=0.1)", "swap(rate=0.2)"] * 6), lang="en")
    name = default_config_name("xquad", "en", chain, seed=3)
    assert check_name("config", name) == name and name.startswith("xquad-en-keyboard-rate0.1")


def test_a_name_the_user_gives_is_checked_never_changed(tmp_path):
    with pytest.raises(ConfigError, match="invalid config name"):
        nc.build("demo", "keyboard", out=tmp_path / "out", config_name="my config", progress=False)


def test_another_source_is_not_added_to_a_dataset_silently(tmp_path, capsys):
    from noisecraft.cli import main
    from noisecraft.sources.registry import demo_file

    out = tmp_path / "out"
    squad = tmp_path / "squad.json"
    squad.write_bytes(demo_file().read_bytes())
    assert main(["build", "--source", "demo", "--out", str(out), "--no-progress"]) == 0
    card = (out / "README.md").read_text(encoding="utf-8")
    assert main(["build", "--source", "squad", "--data-file", str(squad), "--out", str(out), "--no-progress"]) == 2
    [message] = capsys.readouterr().err.strip().splitlines()
    assert "holds a dataset of demo; this build adds squad" in message and "--add-source" in message
    assert (out / "README.md").read_text(encoding="utf-8") == card and not (out / "squad-en-keyboard").exists()
    assert main(["build", "--source", "squad", "--data-file", str(squad), "--out", str(out), "--no-progress",
                 "--add-source"]) == 0
    assert (out / "squad-en-keyboard").is_dir()
    assert main(["build", "--source", "demo", "--noise", "swap", "--out", str(out), "--no-progress"]) == 0  # held
