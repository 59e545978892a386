"""LLMs through lm-evaluation-harness: ``noisecraft export lm-eval`` -> ``lm_eval`` (a tiny random causal LM built
here, on CPU, ``--limit 8``) -> ``noisecraft evaluate --lm-eval-samples``, on a QA set (the demo sample) and a
classification set (real MRPC rows). The report's numbers are checked against a computation of the test's own
from the samples files (SQuAD normalisation written out here, argmax of the logged log-likelihoods); samples
rewritten with known answers give non-trivial scores; samples that do not match the set are one-line errors.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import string
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import yaml

import noisecraft as nc
from noisecraft.dataset.repo import read_manifest
from noisecraft.errors import ConfigError
from noisecraft.harness import evaluate_lm_eval, export_lm_eval

from conftest import REPO_ROOT, corpus
from tiny_models import tiny_model

pytestmark = pytest.mark.skipif(importlib.util.find_spec("lm_eval") is None,
                                reason="lm-evaluation-harness is not installed (the [llm] extra: pip install "
                                       "'noisecraft[llm]')")

QA, MRPC = "demo-en-keyboard", "glue-mrpc-en-keyboard"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": str(cwd / "hf-cache"),
           "NOISECRAFT_CACHE": str(cwd / "cache"), "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


@pytest.fixture(scope="module")
def lm_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two sets built, exported with the CLI, and one ``lm_eval`` run of both groups (``root/run``)."""
    root = tmp_path_factory.mktemp("lm-eval")
    nc.build("demo", "keyboard", root / "qa", progress=False)
    nc.build("glue/mrpc", "keyboard", root / "mrpc", data_file=corpus("glue/MRPC/dev.tsv"), progress=False)
    for name in ("qa", "mrpc"):
        exported = _run("-m", "noisecraft.cli", "export", "lm-eval", name, "--out", f"tasks/{name}", cwd=root)
        assert exported.returncode == 0, exported.stderr
        assert f"--tasks noisecraft-{name} --include_path tasks/{name}" in exported.stdout
    ran = _run("-m", "lm_eval", "--model", "hf", "--model_args", f"pretrained={tiny_model('causal-lm')}",
               "--device", "cpu", "--tasks", "noisecraft-qa,noisecraft-mrpc", "--include_path", "tasks", "--limit", "8",
               "--gen_kwargs", "max_gen_toks=4", "--log_samples", "--output_path", "run", cwd=root)
    assert ran.returncode == 0, ran.stderr[-3000:]
    return root


def _samples(root: Path, config: str, side: str) -> list[dict]:
    (path,) = (root / "run").rglob(f"samples_noisecraft-*.{config}.{side}_*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _squad_tokens(text: str) -> list[str]:
    """The official SQuAD v1.1 normalisation, written out again for an independent check."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split()).split()


def _squad(answer: str, gold: list[str]) -> tuple[float, float]:
    """Exact match and F1 of ``answer`` against the best gold answer."""
    def f1(a: list[str], g: list[str]) -> float:
        common = sum((Counter(a) & Counter(g)).values())
        return 0.0 if common == 0 else 2 * common / (len(a) + len(g))

    tokens = _squad_tokens(answer)
    return (float(any(tokens == _squad_tokens(g) for g in gold)), max(f1(tokens, _squad_tokens(g)) for g in gold))


def _expected(root: Path, config: str) -> dict[str, dict[str, float]]:
    """Each side's scores computed from the samples files alone."""
    scores = {}
    for side in ("clean", "noisy"):
        samples = sorted(_samples(root, config, side), key=lambda s: s["doc"]["id"])
        if config == QA:
            pairs = [_squad(s["filtered_resps"][0], s["doc"]["answers"]["text"]) for s in samples]
            scores[side] = {"exact_match": float(np.mean([em for em, _ in pairs])), "f1": float(np.mean([f for _, f in pairs]))}
        else:
            lls = np.array([[float(r[0]) for r in s["filtered_resps"]] for s in samples])
            predicted = lls.argmax(axis=1).tolist()
            scores[side] = {"accuracy": float(np.mean([p == s["doc"]["label"] for p, s in zip(predicted, samples)])),
                            "confidence": float(np.mean(1 / np.exp(lls - lls.max(axis=1, keepdims=True)).sum(axis=1))),
                            "predicted": predicted}
    return scores


def _evaluate(root: Path, name: str, out: str) -> dict:
    done = _run("-m", "noisecraft.cli", "evaluate", "--lm-eval-samples", "run", "--dataset", name, "--bootstrap", "200",
                "--out", out, "--no-plots", cwd=root)
    assert done.returncode == 0, done.stderr
    return json.loads((root / out / "results.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_export_lm_eval_evaluate_end_to_end(lm_run):
    for name, config, metrics in (("qa", QA, ("exact_match", "f1")), ("mrpc", MRPC, ("accuracy",))):
        record = _evaluate(lm_run, name, f"report-{name}")
        (result,) = record["results"]
        assert (result["model"], result["config"], result["n"]) == ("causal-lm", config, 8)
        expected = _expected(lm_run, config)
        for metric in (*metrics, "confidence") if name == "mrpc" else metrics:
            for side in ("clean", "noisy"):
                assert result["metrics"][metric][side] == pytest.approx(expected[side][metric], abs=1e-12)
        assert record["models"][0]["task"] == "lm-eval (hf)" and record["versions"]["lm_eval"]
        assert any("lm-eval ran 8 of its" in note for note in record["notes"])
        assert any(f"not read: samples of noisecraft-{'mrpc' if name == 'qa' else 'qa'}." in n for n in record["notes"])
        readme = (lm_run / f"report-{name}" / "README.md").read_text(encoding="utf-8")
        assert "samples lm-evaluation-harness logged in `run`" in readme
    for side in ("clean", "noisy"):  # lm-eval's own acc is the report's right/wrong, row by row
        samples = sorted(_samples(lm_run, MRPC, side), key=lambda s: s["doc"]["id"])
        assert [s["acc"] for s in samples] == [float(p == s["doc"]["label"]) for p, s in
                                               zip(_expected(lm_run, MRPC)[side]["predicted"], samples)]
    clean, noisy = _samples(lm_run, QA, "clean")[0], _samples(lm_run, QA, "noisy")[0]
    assert clean["doc"]["original_question"] in clean["arguments"]["gen_args_0"]["arg_0"]
    assert noisy["doc"]["question"] in noisy["arguments"]["gen_args_0"]["arg_0"]
    assert clean["doc"]["question"] not in clean["arguments"]["gen_args_0"]["arg_0"]


def _rewrite(run: Path, config: str, side: str, change: Callable[[list[dict]], list[dict]]) -> None:
    """Replace the samples of ``config``'s ``side`` in the run folder with ``change(samples)``."""
    (path,) = run.rglob(f"samples_noisecraft-*.{config}.{side}_*.jsonl")
    samples = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(sample) + "\n" for sample in change(samples)), encoding="utf-8")


@pytest.mark.slow
def test_known_answers_give_the_independent_scores(lm_run, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(lm_run, root, ignore=shutil.ignore_patterns("hf-cache", "cache"))

    def answer(i: int, sample: dict, side: str) -> dict:
        gold = sample["doc"]["answers"]["text"][0]
        shown = [gold, f"The {gold}!", gold.split()[0] + " and more words", "nothing at all"][(i + (side == "noisy")) % 4]
        return {**sample, "filtered_resps": [shown]}

    def choose(i: int, sample: dict, side: str) -> dict:
        pick = (i * 7 + (3 if side == "noisy" else 0)) % 5 < 2  # some rows flip between the sides
        lls = [["-1.5", "False"], ["-2.5", "False"]] if pick else [["-3.0", "False"], ["-0.5", "True"]]
        return {**sample, "filtered_resps": lls}

    for side in ("clean", "noisy"):
        _rewrite(root / "run", QA, side, lambda samples, side=side: [answer(i, s, side) for i, s in enumerate(samples)])
        _rewrite(root / "run", MRPC, side, lambda samples, side=side: [choose(i, s, side) for i, s in enumerate(samples)])
    qa = evaluate_lm_eval(root / "run", root / "qa", resamples=100).results[0]["metrics"]
    expected = _expected(root, QA)
    assert 0 < expected["noisy"]["f1"] < expected["clean"]["f1"] < 1
    for metric in ("exact_match", "f1"):
        assert qa[metric]["clean"] == pytest.approx(expected["clean"][metric])
        assert qa[metric]["noisy"] == pytest.approx(expected["noisy"][metric])
    mrpc = evaluate_lm_eval(root / "run", root / "mrpc", resamples=100).results[0]["metrics"]
    expected = _expected(root, MRPC)
    flips = [a != b for a, b in zip(expected["clean"]["predicted"], expected["noisy"]["predicted"])]
    assert mrpc["accuracy"]["clean"] == pytest.approx(expected["clean"]["accuracy"])
    assert mrpc["accuracy"]["noisy"] == pytest.approx(expected["noisy"]["accuracy"])
    assert mrpc["agreement"] == pytest.approx(1 - np.mean(flips)) and 0 < np.mean(flips) < 1
    for side in ("clean", "noisy"):
        assert mrpc["confidence"][side] == pytest.approx(expected[side]["confidence"])
    gold = [s["doc"]["label"] for s in sorted(_samples(root, MRPC, "clean"), key=lambda s: s["doc"]["id"])]
    right = {side: [p == g for p, g in zip(expected[side]["predicted"], gold)] for side in ("clean", "noisy")}
    assert (mrpc["accuracy"]["mcnemar"]["b"], mrpc["accuracy"]["mcnemar"]["c"]) == (
        sum(c and not n for c, n in zip(right["clean"], right["noisy"])),
        sum(n and not c for c, n in zip(right["clean"], right["noisy"])))


@pytest.mark.slow
def test_two_models_in_one_run_folder_are_compared(lm_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(lm_run / "run", run)
    (first,) = run.iterdir()
    shutil.copytree(first, run / "org__other")
    (results,) = (run / "org__other").glob("results_*.json")
    results.write_text(json.dumps({**json.loads(results.read_text(encoding="utf-8")), "model_name": "org/other"}),
                       encoding="utf-8")
    for side in ("clean", "noisy"):  # the other model always answers "not equivalent"
        _rewrite(run / "org__other", MRPC, side,
                 lambda samples: [{**s, "filtered_resps": [["-1.0", "True"], ["-2.0", "False"]]} for s in samples])
    record = evaluate_lm_eval(run, lm_run / "mrpc", resamples=50).to_dict()
    assert [m["model"] for m in record["models"]] == ["causal-lm", "org/other"]
    (comparison,) = record["model_comparisons"]
    assert (comparison["first"], comparison["second"], comparison["n"]) == ("causal-lm", "org/other", 8)
    samples = _samples(lm_run, MRPC, "clean")
    mine = _expected(lm_run, MRPC)["clean"]["accuracy"]
    theirs = np.mean([s["doc"]["label"] == 0 for s in samples])
    assert comparison["clean"]["difference"] == pytest.approx(mine - theirs)


@pytest.mark.slow
@pytest.mark.parametrize(("side", "change", "message"), [
    ("noisy", lambda s: [*s, s[0]], r"row id '0' has more than one sample"),
    ("clean", lambda s: [{**s[0], "doc": {**s[0]["doc"], "id": "no-such-row"}}, *s[1:]],
     r"sample id 'no-such-row' is not a row of glue-mrpc-en-keyboard"),
    ("noisy", lambda s: s[:-1], r"has a sample on one side only; run the clean and the noisy task on the same rows"),
    ("noisy", lambda s: [{**s[0], "doc": {**s[0]["doc"], "sentence1": "rebuilt"}}, *s[1:]],
     r"is not the set's row \(sentence1 differ\): was the set rebuilt"),
    ("clean", lambda s: [{**x, "filtered_resps": x["filtered_resps"][:1]} for x in s],
     r"scores 1 choices and the config has 2 labels"),
])
def test_samples_that_do_not_match_the_set_are_errors(lm_run, tmp_path, side, change, message):
    run = tmp_path / "run"
    shutil.copytree(lm_run / "run", run)
    _rewrite(run, MRPC, side, change)
    with pytest.raises(ConfigError, match=message):
        evaluate_lm_eval(run, lm_run / "mrpc", resamples=0)


@pytest.mark.slow
def test_a_missing_side_or_results_file_is_an_error(lm_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(lm_run / "run", run)
    (results,) = run.rglob("results_*.json")
    record = json.loads(results.read_text(encoding="utf-8"))
    task = next(t for t in record["configs"] if t.endswith(f"{MRPC}.noisy"))
    del record["configs"][task]
    results.write_text(json.dumps(record), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"has no results_<date>.json of its run beside it"):
        evaluate_lm_eval(run, lm_run / "mrpc", resamples=0)
    next(run.rglob(f"samples_{task}_*.jsonl")).unlink()
    with pytest.raises(ConfigError, match=rf"causal-lm has clean samples of {MRPC} but no noisy ones"):
        evaluate_lm_eval(run, lm_run / "mrpc", resamples=0)
    with pytest.raises(ConfigError, match="holds no samples of config 'nope'"):
        evaluate_lm_eval(lm_run / "run", lm_run / "mrpc", ["nope"], resamples=0)


@pytest.fixture(scope="module")
def small_sets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("lm-eval-export")
    nc.build("demo", ["keyboard", "swap"], root / "qa", progress=False)
    nc.build("wikiann", "keyboard(rate=0.5)", root / "ner", data_file=REPO_ROOT / "tests" / "data" / "wikiann_sample_en.txt",
             progress=False)
    return root


def test_export_writes_a_task_per_config_and_side(small_sets, tmp_path):
    result = export_lm_eval(small_sets / "qa", tmp_path / "tasks")
    assert result.group == "noisecraft-qa" and result.skipped == []
    assert result.tasks == [f"noisecraft-qa.demo-en-{noise}.{side}" for noise in ("keyboard", "swap")
                            for side in ("clean", "noisy")]
    assert sorted(p.name for p in (tmp_path / "tasks").iterdir()) == sorted(
        [f"{t}.yaml" for t in result.tasks] + ["noisecraft-qa.yaml", "utils.py"])
    text = (tmp_path / "tasks" / "noisecraft-qa.demo-en-swap.clean.yaml").read_text(encoding="utf-8")
    assert "process_results: !function 'utils.squad_scores'" in text
    task = yaml.load(text.replace("!function", ""), Loader=yaml.SafeLoader)
    assert task["dataset_path"] == "parquet" and task["test_split"] == "validation"
    folder = (small_sets / "qa").resolve()  # the files the set's card names, not a glob that could match others
    assert task["dataset_kwargs"]["data_files"] == {"validation": [
        str(folder / path) for path in read_manifest(folder)["configs"]["demo-en-swap"]["files"]["validation"]]}
    assert task["doc_to_text"].startswith("{% set question = original_question -%}\n")
    assert task["output_type"] == "generate_until" and task["doc_to_target"] == "{{answers.text[0]}}"
    assert task["metadata"]["noisecraft"] == {"set": "qa", "config": "demo-en-swap", "side": "clean"}
    noisy = yaml.load((tmp_path / "tasks" / "noisecraft-qa.demo-en-swap.noisy.yaml").read_text(encoding="utf-8")
                      .replace("!function", ""), Loader=yaml.SafeLoader)
    assert noisy["doc_to_text"] == task["doc_to_text"].split("\n", 1)[1] and "{{question}}" in noisy["doc_to_text"]
    group = yaml.safe_load((tmp_path / "tasks" / "noisecraft-qa.yaml").read_text(encoding="utf-8"))
    assert group == {"group": "noisecraft-qa", "task": result.tasks, "metadata": {"version": 1}}
    with pytest.raises(ConfigError, match="exists and is not an empty folder"):
        export_lm_eval(small_sets / "qa", tmp_path / "tasks")
    with pytest.raises(ConfigError, match="nothing to export from .*ner: wikiann-en-keyboard-rate0.5 is not exported: token "
                                          "classification"):
        export_lm_eval(small_sets / "ner", tmp_path / "ner-tasks")


@pytest.mark.parametrize(("prompt", "message"), [
    ("Q: {{question}} C: {{passage}}", r"names passage, which config demo-en-keyboard does not have; its columns: "),
    ("Q: {{original_question}}", r"names original_question: name the field itself \(question\)"),
    ("C: {{context}}", r"names none of the perturbed fields of demo-en-keyboard \(question\)"),
    ("Q: {{question", r"not a valid Jinja template"),
])
def test_a_prompt_that_cannot_work_is_refused(small_sets, tmp_path, prompt, message):
    with pytest.raises(ConfigError, match=message):
        export_lm_eval(small_sets / "qa", tmp_path / "tasks", prompt=prompt)
    assert not (tmp_path / "tasks").exists()


def test_a_prompt_replaces_every_tasks_prompt(small_sets, tmp_path):
    result = export_lm_eval(small_sets / "qa", tmp_path / "tasks", ["demo-en-swap"], prompt="{{context}}\nQ: {{question}}\nA:",
                            group="mine")
    assert result.tasks == ["mine.demo-en-swap.clean", "mine.demo-en-swap.noisy"]
    clean = yaml.load((tmp_path / "tasks" / "mine.demo-en-swap.clean.yaml").read_text(encoding="utf-8")
                      .replace("!function", ""), Loader=yaml.SafeLoader)
    assert clean["doc_to_text"] == "{% set question = original_question -%}\n{{context}}\nQ: {{question}}\nA:"


def test_models_are_named_as_for_encoders(tmp_path, monkeypatch):
    from noisecraft.harness.lm_eval_samples import model_label

    (tmp_path / "models" / "causal-lm").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert [model_label(n) for n in ("Qwen/Qwen2.5-0.5B", "models/causal-lm", "/somewhere/else/my-llm", "./llm")] == \
        ["Qwen/Qwen2.5-0.5B", "causal-lm", "my-llm", "llm"]


def test_evaluate_takes_models_or_samples_and_says_which_options_apply(small_sets, tmp_path, capsys):
    from noisecraft.cli import main

    base = ["evaluate", "--dataset", str(small_sets / "qa"), "--out", str(tmp_path / "report")]
    for extra, message in (([], "give --model (models to run) or --lm-eval-samples RUN"),
                           (["--model", "x", "--lm-eval-samples", "run"], "give --model (models to run) or"),
                           (["--lm-eval-samples", "run", "--max-examples", "5"], "--max-examples applies to --model"),
                           (["--lm-eval-samples", str(tmp_path / "nothing")], "nothing is not a folder: give lm_eval's")):
        assert main([*base, *extra]) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("noisecraft: error: ") and message in line
    assert not (tmp_path / "report").exists()
