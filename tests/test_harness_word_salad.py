"""The harness measures what the word-salad paper measures (Gupta et al., 2021): agreement (against the default
label for copy transformations), confidence next to 1/N, and the per-transformation table over seeds, on a folder
built from the real GLUE MRPC dev set and MNLI slice with tiny models."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import noisecraft as nc
from noisecraft.building.recipe import Recipe, load_recipe, requests
from noisecraft.errors import ConfigError
from noisecraft.harness.challenge_set import open_challenge_set
from noisecraft.harness.salad import default_label, is_word_salad, transformation

from conftest import REPO_ROOT, corpus
from tiny_models import tiny_model

pytestmark = [pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("torch", "matplotlib")),
                                 reason="the [eval] extra (torch, matplotlib) is not installed"),
              pytest.mark.usefixtures("one_torch_thread")]

ROWS = 40  # rows evaluated per config: the tiny models are cheap, but 13 configs x 2 sides add up on 2 cores
SEEDS = (0, 1, 2)




@pytest.fixture(scope="module")
def salad(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MRPC dev: sort, reverse, copysort, keyboard (not word salad) and shuffle under three seeds; the MNLI slice:
    sort and copysort."""
    folder = tmp_path_factory.mktemp("salad") / "set"
    mrpc, mnli = corpus("glue/MRPC/dev.tsv"), corpus("glue_slices_fastnlp/MNLI/dev_matched.tsv")
    nc.build("glue/mrpc", ["sort", "reverse", "keyboard"], folder, data_file=mrpc, fields=["sentence1"], progress=False)
    nc.build("glue/mrpc", "copysort", folder, data_file=mrpc, progress=False)
    for seed in SEEDS:
        nc.build("glue/mrpc", "shuffle", folder, data_file=mrpc, fields=["sentence1"], seed=seed, progress=False)
    nc.build("glue/mnli", ["sort", "copysort"], folder, data_file=mnli, split="validation_matched", progress=False,
             add_source=True)
    return folder


@pytest.fixture(scope="module")
def evaluated(salad: Path, tmp_path_factory: pytest.TempPathFactory):
    """Each model on its task's configs (both are classifiers: an MNLI model on MRPC would be a label error):
    the MRPC model with a report folder, the MNLI model without."""
    report = tmp_path_factory.mktemp("report")
    configs = open_challenge_set(salad).config_names
    mrpc = nc.evaluate(salad, [str(tiny_model("cls-mrpc"))], [c for c in configs if "mrpc" in c], max_examples=ROWS,
                       resamples=0, out=report, plots=False, progress=False)
    mnli = nc.evaluate(salad, [str(tiny_model("cls-mnli"))], [c for c in configs if "mnli" in c], max_examples=ROWS,
                       resamples=0, progress=False)
    return {"cls-mrpc": mrpc, "cls-mnli": mnli}, report


def _columns(result, model: str, config: str) -> dict:
    return next(columns for label, name, columns in result.predictions if label == model and name == config)


def test_default_label_is_found_by_name_never_by_position():
    assert default_label("c", "copysort@1", ("entailment", "neutral", "contradiction")) == 0
    assert default_label("c", "copysort@2", ("not_equivalent", "equivalent")) == 1  # not the "not_" one
    assert default_label("c", "copyone@1", ("not_duplicate", "duplicate")) == 1
    assert default_label("c", "keyboard@1 | copysort@1", ("Contradiction", "Entailment")) == 1
    assert default_label("c", "sort@1", ("not_equivalent", "equivalent")) is None
    with pytest.raises(ConfigError, match=r"^config c: copysort@1 is measured against the label copying makes true, "
                                          r"but none of its labels \(negative, positive\)"):
        default_label("c", "copysort@1", ("negative", "positive"))


def test_the_word_salad_family_is_read_from_the_models_citation():
    assert all(is_word_salad(noise) for noise in ("sort@1", "shuffle@2", "copysort@1", "keyboard@1 | reverse@1"))
    assert not is_word_salad("keyboard@1") and not is_word_salad("no-such-noise@9")


def test_a_row_names_the_transformation_by_its_non_default_parameters():
    assert transformation({"noise_id": "shuffle@2", "params": {"lang": "en", "max_tries": 100}}) == "shuffle@2"
    assert transformation({"noise_id": "shuffle@2", "params": {"lang": "de", "max_tries": 5}}) == "shuffle@2 max_tries=5 lang=de"
    # an importance model's classifier differs per task by nature: drop on MRPC and on SST-2 are one row
    for model in ("mrpc-model", "sst2-model"):
        drop = {"noise_id": "drop@1", "params": {"model": model, "revision": None, "r": 0.3, "lang": "en"}}
        assert transformation(drop) == "drop@1 r=0.3" and is_word_salad("drop@1")
    chain = {"noise_id": "keyboard@1 | sort@2", "params": {"rate": 0.1}, "config": "c"}
    assert transformation(chain) == "keyboard@1 | sort@2 rate=0.1"


def test_agreement_confidence_and_seeds_per_transformation(evaluated):
    results, _ = evaluated
    record = results["cls-mrpc"].to_dict()
    rows = {r["transformation"]: r for r in record["word_salad"]}
    # keyboard is not word salad: not a row
    assert set(rows) == {"sort@2", "reverse@2", "copysort@2", "shuffle@2"}
    shuffle = rows["shuffle@2"]
    configs = ["glue-mrpc-en-shuffle", "glue-mrpc-en-shuffle-seed1", "glue-mrpc-en-shuffle-seed2"]
    assert shuffle["seeds"] == list(SEEDS) and shuffle["configs"] == configs and shuffle["task"] == "glue/mrpc"
    by_config = {r["config"]: r for r in record["results"]}
    per_seed = [by_config[c]["metrics"]["agreement"] for c in configs]
    assert shuffle["agreement"]["values"] == per_seed
    assert shuffle["agreement"]["mean"] == pytest.approx(np.mean(per_seed))
    assert shuffle["agreement"]["sd"] == pytest.approx(np.std(per_seed, ddof=1))
    confidences = [by_config[c]["metrics"]["confidence"]["noisy"] for c in configs]
    assert shuffle["confidence"]["mean"] == pytest.approx(np.mean(confidences))
    assert shuffle["agreement_with"] == "original prediction" and shuffle["chance"] == 0.5
    for model, task, label, chance in (("cls-mrpc", "glue/mrpc", "equivalent", 1 / 2),
                                       ("cls-mnli", "glue/mnli", "entailment", 1 / 3)):
        result = results[model]
        rows = {r["transformation"]: r for r in result.to_dict()["word_salad"]}
        copy = rows["copysort@2"]
        columns = _columns(result, model, copy["configs"][0])
        expected = np.mean([p == label for p in columns["noisy_prediction"]])
        assert copy["task"] == task and copy["agreement_with"] == f"default label {label}"
        assert copy["agreement"]["mean"] == pytest.approx(expected) and copy["agreement"]["sd"] is None
        assert copy["chance"] == pytest.approx(chance)
        assert copy["confidence"]["mean"] == pytest.approx(np.mean(columns["noisy_confidence"]))
        sort = rows["sort@2"]
        sorted_columns = _columns(result, model, sort["configs"][0])
        same = np.mean([a == b for a, b in zip(sorted_columns["clean_prediction"], sorted_columns["noisy_prediction"])])
        assert sort["agreement"]["mean"] == pytest.approx(same) and sort["agreement_with"] == "original prediction"


def test_the_report_and_console_show_the_table(evaluated):
    results, report = evaluated
    readme = (report / "README.md").read_text(encoding="utf-8")
    assert "## Word salad" in readme and "**cls-mrpc**" in readme
    assert "| transformation | glue/mrpc agreement | glue/mrpc confidence (1/N = 50.0) |" in readme
    assert "| shuffle@2 (3 seeds) | " in readme and " ± " in readme and "(vs equivalent)" in readme
    saved = json.loads((report / "results.json").read_text(encoding="utf-8"))["word_salad"]
    assert saved == results["cls-mrpc"].to_dict()["word_salad"]
    console = results["cls-mnli"].word_salad()
    assert console.startswith("cls-mnli:\n") and "glue/mnli confidence (1/N = 33.3)" in console
    assert "(vs entailment)" in console


def test_no_word_salad_section_without_word_salad_configs(salad, tmp_path):
    result = nc.evaluate(salad, [str(tiny_model("cls-mrpc"))], ["glue-mrpc-en-keyboard"], max_examples=ROWS,
                         resamples=0, out=tmp_path, plots=False, progress=False)
    assert result.to_dict()["word_salad"] == [] and result.word_salad() == ""
    assert "## Word salad" not in (tmp_path / "README.md").read_text(encoding="utf-8")


def test_the_cli_prints_the_word_salad_table(salad, tmp_path):
    done = subprocess.run([sys.executable, "-m", "noisecraft.cli", "evaluate", "--dataset", str(salad), "--model",
                           str(tiny_model("cls-mrpc")), "--config", "glue-mrpc-en-sort", "--config",
                           "glue-mrpc-en-copysort", "--max-examples", "20", "--bootstrap", "0", "--no-plots",
                           "--no-progress", "--out", str(tmp_path / "r")], capture_output=True, text=True,
                          env={**os.environ, "NOISECRAFT_CACHE": str(tmp_path / "cache"),
                               "OMP_NUM_THREADS": "1"}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "word salad (agreement and confidence, %):\ncls-mrpc:" in done.stdout
    assert "copysort@2" in done.stdout and "(vs equivalent)" in done.stdout


def test_the_recipe_builds_shuffle_under_five_seeds():
    """Every shuffle group of the recipe makes five configs, seeds 0-4, with distinct names; no other group is seeded
    (the groups are expanded alone: other groups' models, pbsmt's kenlm, need not be installed)."""
    recipe = load_recipe(REPO_ROOT / "scripts" / "recipes" / "word-salad-glue.toml")
    groups = recipe.table["configs"]
    shuffles = [g for g in groups if any(n == "shuffle" or (isinstance(n, dict) and n.get("name") == "shuffle")
                                         for n in g["noise"])]
    assert all(g["noise"] == ["shuffle"] for g in shuffles)
    assert all("seeds" not in g for g in groups if g not in shuffles)
    built = requests(Recipe(recipe.path, {**recipe.table, "configs": shuffles}))
    by_source: dict[str, list[int]] = {}
    for request in built:
        by_source.setdefault(request.source, []).append(request.seed)
    assert by_source == {source: [0, 1, 2, 3, 4] for source in ("glue/mrpc", "glue/qnli", "glue/sst2", "glue/mnli")}
