"""The recipe catalogue (scripts/recipes/*.toml): every recipe builds from the local original files,
loads back, and keeps its resolved recipe in the manifest and the card; --seed/--set and the
recipe errors behave as documented in builders/building/recipe.py.

The tests that build read the real corpora: without them they skip, and fail under ``CI=true`` (as every test of
the corpora does, :func:`conftest.corpus`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import datasets
import pytest

import noisecraft as nc
from noisecraft.building.pipeline import default_config_name, resolve_model
from noisecraft.building.recipe import load_recipe, requests
from noisecraft.dataset.card import format_recipe
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError

from conftest import REPO_ROOT, corpus
from tiny_models import resolve_tiny, tiny_model

RECIPE_DIR = REPO_ROOT / "scripts" / "recipes"
RECIPES = sorted(RECIPE_DIR.glob("*.toml"))
EXPECTED = {"noiseqa-keyboard.toml", "coles-typos.toml", "wikiedit-xnli-wikiann.toml", "word-salad-glue.toml",
            "noiseqa-mt.toml", "noiseqa-asr.toml"}
#: Recipes that take ~7-9 s each to build and load on 2 cores (22 configs of 1190 questions; QNLI's 5463 pairs x 4),
#: and the recipes of model-based noise (12 configs of MT, 9 of speech through tiny models).
SLOW = {"coles-typos.toml", "coles.toml", "word-salad-glue.toml", "noiseqa-mt.toml", "noiseqa-asr.toml", "grammar-glue.toml"}
#: Model-based noise cannot reach the Hub here: its models are replaced by tiny ones (tests/tiny_models.py) built
#: locally, with outputs kept short. The recipe's structure, sources and every config are still built.
#: Their groups read the 4-question XQuAD slice under tests/data instead of the 1190 questions (offline speech
#: engines take ~0.5 s a question): the recipe's structure, every config and the loaded result are still checked.
TINY_MODELS = {
    "translation": {"forward_model": "tiny:marian-en-de", "backward_model": "tiny:marian-de-en", "max_new_tokens": 12},
    "natural-translation": {"model": "tiny:marian-de-en", "max_new_tokens": 12},
    "asr": {"tts": "espeak", "asr": "hf-whisper", "asr_model": "tiny:whisper-hf"},
}
#: Classifiers of the importance-guided word salad (drop, repeat, replace, copyone) become a tiny BERT with the labels
#: of the group's source (the models refuse a classifier of another task; SST-2: unnamed labels, as the recipe's).
TINY_CLASSIFIERS = {"drop", "repeat", "replace", "copyone"}
TINY_CLASSIFIER_OF = {"glue/mrpc": "cls-mrpc", "glue/sst2": "cls-unnamed", "glue/mnli": "cls-mnli"}
#: pbsmt trains on the Hub's training split by default: here on the toy corpus, and decodes its dev rows (the local
#: MNLI slice's premises share no phrase with it); for SST-2 the toy training sentences are also the rows.
PBSMT = {"mnli": ("tests/data/pbsmt/mnli_train.tsv", "tests/data/pbsmt/mnli_dev.tsv"),
         "sst2": ("tests/data/pbsmt/sst2_train.tsv", "tests/data/pbsmt/sst2_train.tsv")}
SLICE = REPO_ROOT / "tests" / "data" / "xquad_slice.{lang}.json"
MEDIAWIKI = {  # each page once: the other Pear/Pyrus files are the same pages in other formats
    "hi": ("hiwiki_kahani_94revs.xml", "hiwiki_main_page_13revs.xml"),
    "en": ("enwiki-20140102.tiny.xml.gz", "pywikibot_article-pear_export-0.3.xml", "pywikibot_article-pyrus.xml.bz2",
           "pywikibot_pair_export-0.10.xml"),
}


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``noisecraft ARGS`` as a user runs it, offline."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.fixture(scope="module")
def corpora() -> Path:
    """The folder of the real corpora (missing: a skip, a failure under ``CI=true``)."""
    return corpus("MANIFEST.tsv").parent


@pytest.fixture(scope="module")
def dictionaries(corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Wikipedia-edit dictionaries mined with ``noisecraft mine wikiedits`` from the local dumps."""
    root = tmp_path_factory.mktemp("wikiedits")
    made = {}
    for lang, names in MEDIAWIKI.items():
        out = root / f"wikiedits-{lang}"
        result = cli("mine", "wikiedits", *(corpora / "mediawiki" / n for n in names), "--lang", lang,
                     "--out", out, "--no-progress")
        assert result.returncode == 0, result.stderr
        assert (out / f"wikiedits-{lang}").is_dir()
        made[lang] = out
    # CoLeS: tweet reduplications of the opinion lexicon, mined from the local Sentiment140 slices
    tweets, lexicon = corpora / "sentiment140", corpora / "opinion_lexicon"
    out = root / "coles-reduplication"
    result = cli("mine", "reduplication", *sorted(tweets.glob("*.csv")), "--lexicon", lexicon / "positive-words.txt",
                 lexicon / "negative-words.txt", "--out", out)
    assert result.returncode == 0, result.stderr
    made["reduplication"] = out
    return made


def local_sets(path: Path, dictionaries: dict[str, Path]) -> list[str]:
    """``--set`` overrides pointing every noise dictionary of a recipe at the freshly mined one."""
    table = tomllib.loads(path.read_text(encoding="utf-8"))
    sets = []
    for g, group in enumerate(table["configs"]):
        for n, entry in enumerate(group["noise"]):
            if isinstance(entry, dict) and str(entry.get("name")).partition("@")[0] == "reduplication":
                sets.append(f"configs.{g}.noise.{n}.dictionary={dictionaries['reduplication']}")
            elif isinstance(entry, dict) and "dictionary" in entry:
                [lang] = group["langs"]  # the text form does not fill {lang}: one language a group
                sets.append(f"configs.{g}.noise.{n}.dictionary={dictionaries[lang]}")
                # the local dumps give a handful of pairs and the local slices a sentence per language: keep
                # unedited sentences (the paper's recipe drops them, which here would drop every row)
                sets.append(f"configs.{g}.noise.{n}.drop_unedited=false")
            elif isinstance(entry, dict) and "confusions" in entry:
                # grammar: confusions mined from the local CoNLL-2014 M2; WordNet and a tagger built offline
                sets += [f"configs.{g}.noise.{n}.confusions={tiny_model('gec-confusions-conll2014')}",
                         f"configs.{g}.noise.{n}.nltk_data={tiny_model('nltk-data-sample')}",
                         f"configs.{g}.noise.{n}.tagger=nltk"]
            else:
                assert "dictionary" not in str(entry), f"{path.name}: write dictionaries as noise tables"
            steps = ([(f"configs.{g}.noise.{n}.chain.{k}", step) for k, step in enumerate(entry["chain"])]
                     if isinstance(entry, dict) and "chain" in entry else [(f"configs.{g}.noise.{n}", entry)])
            for where, step in steps:
                if isinstance(step, dict) and str(step.get("name")).partition("@")[0] == "pbsmt":
                    train, rows = PBSMT[step["task"]]
                    sets += [f"{where}.data_file={REPO_ROOT / train}", f"configs.{g}.data_file={REPO_ROOT / rows}"]
                if isinstance(step, dict) and str(step.get("name")).partition("@")[0] in TINY_CLASSIFIERS:
                    sets.append(f"{where}.model={tiny_model(TINY_CLASSIFIER_OF[group['source']])}")
                if isinstance(step, dict) and step.get("name") in TINY_MODELS:
                    sets += [f"{where}.{key}={resolve_tiny(value)}" for key, value in TINY_MODELS[step["name"]].items()]
                    if step.get("tts") == "gtts":  # the Google accent (a domain) is no espeak voice; slower than the grid
                        sets += [f"{where}.voice=en-us", f"{where}.rate=140"]
                    if f"configs.{g}.data_file={SLICE}" not in sets:
                        sets.append(f"configs.{g}.data_file={SLICE}")
    return sets


def check_built(out: Path, table: dict[str, Any], n_configs: int) -> dict[str, Any]:
    """Every config loads, the manifest keeps the resolved recipe, the card prints it."""
    manifest = read_manifest(out)
    assert manifest["recipe"] == table
    assert manifest["version"] == table["version"]
    assert len(manifest["configs"]) == n_configs
    for name, entry in manifest["configs"].items():
        loaded = datasets.load_dataset(str(out), name)
        split = entry["spec"]["split"]
        assert list(loaded) == [split], name
        assert loaded[split].num_rows == entry["stats"]["rows"] > 0, name
        assert {"noise_edits", "noise_name", "noise_seed"} <= set(loaded[split].column_names)
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "## Recipe" in card and format_recipe(table) in card
    assert tomllib.loads(format_recipe(table)) == table  # the card's recipe rebuilds the same set
    return manifest


# --- the catalogue ----------------------------------------------------------------------------


def test_catalogue_has_the_seed_paper_recipes_each_with_its_header():
    assert EXPECTED <= {p.name for p in RECIPES}
    for path in RECIPES:
        text = path.read_text(encoding="utf-8")
        header = text[: text.index("\nname = ")]
        assert all(line.startswith("#") or not line.strip() for line in header.splitlines()), path.name
        for needed in ("Follows", "Differs", f"noisecraft build scripts/recipes/{path.name} --out OUT",
                       f"noisecraft build scripts/recipes/{path.name} --data-dir ../shared/corpora --out OUT"):
            assert needed in header, f"{path.name}: header lacks {needed!r}"


def test_data_files_match_the_local_corpora_layout(corpora):
    for path in RECIPES:
        for number, group in enumerate(load_recipe(path).table["configs"]):
            assert "data_file" in group, f"{path.name}, group {number}: no data_file, so it cannot build offline"
            for lang in group.get("langs", ["en"]):
                relative = group["data_file"].replace("{lang}", lang)
                assert (corpora / relative).exists(), f"{path.name}: {relative} is not under {corpora}"  # file or folder


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.name in SLOW else [])
                                  for p in RECIPES])
def test_recipe_builds_from_local_files_and_loads_back(path, corpora, dictionaries, tmp_path, monkeypatch):
    if "coles-words" in path.read_text(encoding="utf-8"):  # it picks adjectives with WordNet (Debian's, copied)
        import nltk

        monkeypatch.setattr(nltk.data, "path", [str(tiny_model("nltk-data-sample")), *nltk.data.path])
    sets = local_sets(path, dictionaries)
    recipe = load_recipe(path, sets=sets)
    out = tmp_path / "out"
    built = nc.build_recipe(path, out=out, data_dir=corpora, sets=sets, progress=False)
    assert [b.name for b in built] == [r.config_name or default_config_name(r.source, r.lang, resolve_model(r.noise, r.lang),
                                                                             r.seed)
                                       for r in requests(recipe, corpora)]
    check_built(out, recipe.table, len(built))


def test_cli_builds_a_recipe_from_local_files(corpora, tmp_path):
    path = RECIPE_DIR / "noiseqa-keyboard.toml"
    out = tmp_path / "out"
    result = cli("build", path, "--data-dir", corpora, "--out", out, "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "xquad-en-keyboard" in result.stdout
    manifest = check_built(out, load_recipe(path).table, 1)
    stats = manifest["configs"]["xquad-en-keyboard"]["stats"]
    assert stats["rows"] == 1190 and 0.2 < stats["edit_rate"] < 0.3  # NoiseQA: 1190 questions, rate 0.25


def test_cli_builds_the_wikiedit_recipe_with_mined_dictionaries(corpora, dictionaries, tmp_path):
    path = RECIPE_DIR / "wikiedit-xnli-wikiann.toml"
    sets = local_sets(path, dictionaries)
    assert len(sets) == 2 * len(load_recipe(path, sets=sets).table["configs"])
    out = tmp_path / "out"
    result = cli("build", path, "--data-dir", corpora, "--out", out, "--no-progress",
                 *(arg for s in sets for arg in ("--set", s)))
    assert result.returncode == 0, result.stderr
    table = load_recipe(path, sets=sets).table
    manifest = check_built(out, table, len(table["configs"]))
    for name, entry in manifest["configs"].items():
        assert entry["spec"]["noise"] == "wikiedit@2"
        assert entry["spec"]["params"]["dictionary"] == dictionaries[entry["spec"]["lang"]].name
        assert name.endswith(f"-wikiedit-{entry['spec']['params']['rate']}")
        assert entry["spec"]["protect_entities"] == (entry["spec"]["source"] == "wikiann")
        description = entry["card"]["description"]  # the mined typos were loaded, not an empty dictionary
        assert "pairs flagged likely_typo" in description and " 0 words in" not in description


# --- overrides --------------------------------------------------------------------------------


def test_seed_overrides_every_group(corpora, dictionaries):
    for path in RECIPES:
        sets = local_sets(path, dictionaries)
        recipe = load_recipe(path, seed=7, sets=sets)
        assert all(group["seeds"] == [7] for group in recipe.table["configs"]), path.name
        todo = requests(recipe, corpora)  # natural translation reads its parallel files there, not from the Hub
        assert todo and all(r.seed == 7 for r in todo), path.name
        for r in todo:
            if r.config_name is None:
                assert default_config_name(r.source, r.lang, resolve_model(r.noise, r.lang), r.seed).endswith("-seed7")


def test_seed_and_version_overrides_reach_the_built_set(corpora, tmp_path):
    path = RECIPE_DIR / "noiseqa-keyboard.toml"
    out = tmp_path / "out"
    built = nc.build_recipe(path, out=out, data_dir=corpora, seed=7, sets=["version=1.1.0"], progress=False)
    assert [b.name for b in built] == ["xquad-en-keyboard-seed7"]
    table = load_recipe(path, seed=7, sets=["version=1.1.0"]).table
    assert table["version"] == "1.1.0" and table["configs"][0]["seeds"] == [7]
    manifest = check_built(out, table, 1)
    assert manifest["version"] == "1.1.0"
    assert "Dataset version: **1.1.0**" in (out / "README.md").read_text(encoding="utf-8")
    assert set(datasets.load_dataset(str(out), "xquad-en-keyboard-seed7", split="validation")["noise_seed"]) == {7}


def test_cli_seed_and_set(corpora, tmp_path):
    out = tmp_path / "out"
    result = cli("build", RECIPE_DIR / "noiseqa-keyboard.toml", "--data-dir", corpora, "--out", out, "--no-progress",
                 "--seed", "7", "--set", "version=1.1.0", "--set", 'configs.0.noise=["swap(rate=0.1)"]')
    assert result.returncode == 0, result.stderr
    manifest = read_manifest(out)
    assert list(manifest["configs"]) == ["xquad-en-swap-rate0.1-seed7"]
    assert manifest["version"] == "1.1.0" and manifest["recipe"]["configs"][0]["noise"] == ["swap(rate=0.1)"]


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("sets", "message"), [
    (["colour=red"], "unknown key(s) colour"),
    (["configs.0.rate=0.1"], "unknown key(s) rate"),
    (["configs.3.langs=[\"de\"]"], "the recipe has no '3' there"),
    (["version=1.1"], "'version' must be a semantic version"),
    (["version=banana"], "'version' must be a semantic version"),
    (["version"], "--set expects key=value"),
])
def test_bad_overrides_are_one_line_config_errors(sets, message):
    with pytest.raises(ConfigError) as caught:
        load_recipe(RECIPE_DIR / "noiseqa-keyboard.toml", sets=sets)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_unknown_keys_in_a_recipe_file_are_refused(tmp_path):
    text = (RECIPE_DIR / "noiseqa-keyboard.toml").read_text(encoding="utf-8")
    for bad, key in ((text.replace('version = "1.0.0"', 'version = "1.0.0"\nlicence = "mit"'), "licence"),
                     (text.replace('split = "validation"', 'split = "validation"\nrate = 0.1'), "rate"),
                     (text.replace('version = "1.0.0"', 'version = "v1"'), None)):
        path = tmp_path / "bad.toml"
        path.write_text(bad, encoding="utf-8")
        with pytest.raises(ConfigError) as caught:
            load_recipe(path)
        assert (key or "semantic version") in str(caught.value) and "\n" not in str(caught.value)


def test_cli_reports_recipe_errors_in_one_line(tmp_path):
    path = RECIPE_DIR / "noiseqa-keyboard.toml"
    for args in (("--set", "version=1.1"), ("--set", "configs.0.colour=red"), ("--source", "xquad")):
        result = cli("build", path, "--out", tmp_path / "out", *args)
        assert result.returncode != 0
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("noisecraft: error:") and "Traceback" not in result.stderr, args
    assert not (tmp_path / "out").exists()


def test_a_config_name_given_to_several_configs_is_refused(dictionaries):
    path = RECIPE_DIR / "wikiedit-xnli-wikiann.toml"
    sets = local_sets(path, dictionaries)
    for extra, message in (
        ('configs.0.langs=["hi", "en"]', "config_name names a single config"),
        ("configs.0.seeds=[0, 1]", "config_name names a single config"),
        ('configs.0.noise=["sort", "reverse"]', "config_name names a single config"),
        ('configs.1.config_name="xnli-hi-wikiedit-0.1"', "two groups give the same config_name"),
    ):
        recipe = load_recipe(path, sets=[*sets, extra])
        with pytest.raises(ConfigError) as caught:
            requests(recipe)
        assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_recipe_name_is_found_beside_an_output_folder_of_that_name(tmp_path, monkeypatch):
    from noisecraft.building.recipe import catalogue, find_recipe

    (tmp_path / "noiseqa-keyboard").mkdir()  # what `--out noiseqa-keyboard/` left here
    monkeypatch.chdir(tmp_path)
    assert find_recipe("noiseqa-keyboard") == catalogue()["noiseqa-keyboard"]
