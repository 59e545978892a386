"""Config and split names: a split name follows datasets' own rule, and a generated config name is always valid."""

from __future__ import annotations

import re

import pytest

import noisecraft as nc
from noisecraft.building.pipeline import default_config_name
from noisecraft.dataset.repo import NAME, check_name, read_manifest, valid_config_name
from noisecraft.errors import ConfigError


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


# --- file and folder parameters: by content digest, never by the names of folders and files ---------------------

def _misspellings(root):
    """A misspelling dictionary folder written by the real miner, inside a folder named like NLTK's data folder."""
    from noisecraft.cli import main

    words = root / "lists" / "birkbeck.txt"
    words.parent.mkdir(parents=True)
    words.write_text("$the\nteh\nhte\n$receive\nrecieve\n$which\nwhich\nwich\n", encoding="utf-8")
    folder = root / "nltk_data" / "mined-misspellings"
    assert main(["mine", "misspellings", str(words), "--out", str(folder), "--no-phonetic-filter"]) == 0
    return folder


def test_a_file_parameter_is_named_by_its_content_digest(tmp_path):
    from noisecraft.core.params import file_digest

    tsv = tmp_path / "nltk_data" / "home-of-alice" / "pairs.tsv"
    tsv.parent.mkdir(parents=True)
    tsv.write_text("the\tteh\t3\nwhich\twich\t1\n", encoding="utf-8")
    model = nc.noise(f"misspelling(dictionary={tsv}, rate=0.5)", lang="en")
    name = default_config_name("demo", "en", model, seed=0)
    assert name == f"demo-en-misspelling-rate0.5-dictionary-{file_digest(tsv)[:8]}"
    copy = tmp_path / "elsewhere.tsv"
    copy.write_bytes(tsv.read_bytes())  # the same content elsewhere: the same name
    assert default_config_name("demo", "en", nc.noise(f"misspelling(dictionary={copy}, rate=0.5)", lang="en"), 0) == name
    tsv.write_text("the\ttHe\t3\n", encoding="utf-8")  # other content: another name
    assert default_config_name("demo", "en", nc.noise(f"misspelling(dictionary={tsv}, rate=0.5)", lang="en"), 0) != name


def test_a_folder_parameter_is_named_by_the_folder_digest_its_seed_uses(tmp_path):
    from noisecraft.noise_models.base import content_digest
    from noisecraft.runtime.loading import folder_digest

    folder = _misspellings(tmp_path)
    model = nc.noise("misspelling", lang="en", dictionary=str(folder))
    name = default_config_name("demo", "en", model, seed=2)
    digest = folder_digest(folder).removeprefix("sha256:")
    assert content_digest(folder) == folder_digest(folder)
    assert name == f"demo-en-misspelling-dictionary-{digest[:8]}-seed2"
    assert "nltk" not in name and "mined" not in name and check_name("config", name) == name


def test_a_layout_file_is_named_by_its_digest_and_a_built_in_layout_by_its_name(tmp_path):
    from noisecraft.core.params import file_digest
    from noisecraft.sources.registry import demo_file

    layout = tmp_path / "my-layouts" / "azerty.toml"
    layout.parent.mkdir()
    layout.write_bytes((demo_file().parents[1] / "keyboards" / "azerty-fr.toml").read_bytes())
    by_file = default_config_name("xquad", "fr", nc.noise(f"keyboard(layout={layout})", lang="fr"), 0)
    assert by_file == f"xquad-fr-keyboard-layout-{file_digest(layout)[:8]}"
    assert default_config_name("xquad", "fr", nc.noise("keyboard(layout=azerty-fr)", lang="fr"), 0) == \
        "xquad-fr-keyboard-layoutazerty-fr"


def test_a_hub_model_id_keeps_its_name():
    from noisecraft.noise_models.translation import RoundTripTranslation

    spec = next(s for s in RoundTripTranslation.param_specs() if s.file == "model")
    model = object.__new__(RoundTripTranslation)  # no weights to load: only the name is asked for
    for s in RoundTripTranslation.param_specs():
        object.__setattr__(model, s.name, s.default)
    object.__setattr__(model, spec.name, "Helsinki-NLP/opus-mt-en-fr")
    assert "-opus-mt-en-fr" in model.name_part()


# --- folders named by the older rule are rebuilt in place, never given a second copy ------------------------

def _rename_config(out, old, new):
    """Make ``out`` look like a folder built before names carried digests: config ``old`` renamed ``new``."""
    from noisecraft.dataset.card import render_card
    from noisecraft.dataset.repo import card_with_manifest

    manifest = read_manifest(out)
    manifest["configs"] = {new if k == old else k: v for k, v in manifest["configs"].items()}
    manifest["configs"][new]["files"] = {split: [path.replace(f"{old}/", f"{new}/", 1) for path in paths]
                                         for split, paths in manifest["configs"][new]["files"].items()}
    (out / old).rename(out / new)
    (out / "README.md").write_text(card_with_manifest(render_card(manifest), manifest), encoding="utf-8")


def test_a_rebuild_of_an_old_auto_name_replaces_it_and_adds_no_second_config(tmp_path):
    import datasets

    tsv = tmp_path / "nltk_data" / "pairs.tsv"
    tsv.parent.mkdir()
    tsv.write_text("the\tteh\t3\nwhich\twich\t1\nis\tsi\t1\n", encoding="utf-8")
    out = tmp_path / "out"
    noise = f"misspelling(dictionary={tsv}, rate=1)"
    [first] = nc.build("demo", noise, out, progress=False)
    before = [r["question"] for r in datasets.load_dataset(str(out), first.name, split="validation")]
    old = "demo-en-misspelling-rate1.0-pairs.tsv"  # what the rule before digests named it
    _rename_config(out, first.name, old)

    [again] = nc.build("demo", noise, out, progress=False)  # the same request: the held config, rebuilt in place
    assert again.name == old and sorted(p.name for p in out.iterdir() if p.is_dir()) == [old]
    assert datasets.get_dataset_config_names(str(out)) == [old]

    tsv.write_text("the\ttHe\t3\n", encoding="utf-8")  # the same request on a changed file: never a silent second copy
    with pytest.raises(ConfigError, match=f"config '{old}' in .* was built with a different spec"):
        nc.build("demo", noise, out, progress=False)
    [replaced] = nc.build("demo", noise, out, progress=False, overwrite=True)
    assert replaced.name == old and sorted(p.name for p in out.iterdir() if p.is_dir()) == [old]
    assert [r["question"] for r in datasets.load_dataset(str(out), old, split="validation")] != before


def test_a_rebuild_naming_the_file_by_another_path_is_not_a_second_config(tmp_path):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("the\tteh\t3\nwhich\twich\t1\n", encoding="utf-8")
    copy = tmp_path / "copy" / "pairs.tsv"
    copy.parent.mkdir()
    copy.write_bytes(tsv.read_bytes())
    out = tmp_path / "out"
    [first] = nc.build("demo", f"misspelling(dictionary={tsv})", out, progress=False)
    _rename_config(out, first.name, "demo-en-misspelling-pairs.tsv")
    [again] = nc.build("demo", f"misspelling(dictionary={copy})", out, progress=False)  # the same bytes, same output
    assert again.name == "demo-en-misspelling-pairs.tsv"
    assert [p.name for p in out.iterdir() if p.is_dir()] == ["demo-en-misspelling-pairs.tsv"]
