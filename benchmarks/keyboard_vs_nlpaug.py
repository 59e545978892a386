"""keyboard@1 and keyboard@2 against nlpaug's ``KeyboardAug`` on the same questions at the same rate.

The peer runs in its **own** environment (nlpaug is never a dependency of noisecraft). Make it once::

    python -m venv /tmp/venv-nlpaug && /tmp/venv-nlpaug/bin/pip install nlpaug==1.1.11 numpy

then ``python benchmarks/keyboard_vs_nlpaug.py --nlpaug-python /tmp/venv-nlpaug/bin/python``.

What is timed (CPU seconds of this process, ``time.process_time``, so other load on a shared machine inflates it
less than wall time; each figure is the median of ``--rounds`` interleaved rounds, A, B, A, B ...):

* ``keyboard@N (with generators)``: what a build pays, ``model(texts, seed, ids, field)``: deriving every example's
  generator (blake2b over seed, model, parameters digest, id and field, then ``random.Random``'s Mersenne Twister,
  seeded on the example's first draw) and the noise;
* ``keyboard@2 generators + apply``: the same without the Python API's input checks (``model(...)`` checks the
  texts for lone surrogates, in one pass, and makes the chain bookkeeping): the example generators derived and one
  :class:`~noisecraft.noise_models.base.NoiseInput` made, then ``model.apply``;
* ``keyboard@2 noise only``: ``model.apply`` on a batch whose generators are already derived and seeded (noise
  only, in words/s; it includes each state's first twist, done on the first draw); the rows with
  generators are the comparison that counts;
* ``nlpaug KeyboardAug``: ``aug.augment(texts)`` with one word in four changed (``aug_word_p=0.25``), one character
  per changed word (``aug_char_min=aug_char_max=1``), words of two characters or more, no special characters or
  digits, upper case allowed: NoiseQA's protocol as closely as nlpaug's parameters allow. It draws from numpy's
  global generator, with no per-example randomness at all.

Words are runs of word characters (:func:`noisecraft.core.text_units.word_pattern`), as in ``keyboard_throughput.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

from results_page import publish

from noisecraft.core.seeding import example_rngs
from noisecraft.core.text_units import word_pattern
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.registry import create

DEFAULT_XQUAD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "xquad" / "xquad.en.json"
DEFAULT_NLPAUG_PYTHON = "/tmp/venv-nlpaug/bin/python"

PEER = r"""
import json, sys, time
import nlpaug.augmenter.char as nac
texts = json.load(open(sys.argv[1], encoding="utf-8"))
aug = nac.KeyboardAug(aug_word_p=0.25, aug_word_min=0, aug_word_max=10**6, aug_char_min=1, aug_char_max=1,
                      aug_char_p=1.0, min_char=2, include_special_char=False, include_numeric=False,
                      include_upper_case=True, lang="en")
aug.augment(texts[:10])  # warm up: the layout loads once
start = time.process_time()
aug.augment(texts)
print(json.dumps(time.process_time() - start))
"""


def questions(path: Path) -> tuple[list[str], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    qas = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    return [q["id"] for q in qas], [q["question"] for q in qas]


def cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--xquad", type=Path, default=DEFAULT_XQUAD, help="SQuAD-format file of the questions")
    parser.add_argument("--nlpaug-python", default=DEFAULT_NLPAUG_PYTHON, help="python of the nlpaug environment")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--copies", type=int, default=4, help="the questions repeated (new ids) to lengthen each run")
    args = parser.parse_args()

    ids, texts = questions(args.xquad)
    ids = [f"{i}-{k}" for k in range(args.copies) for i in ids]
    texts = texts * args.copies
    words = sum(len(word_pattern().findall(t)) for t in texts)
    texts_file = Path("/tmp/noisecraft-nlpaug-texts.json")
    texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    models = {name: create(name, lang="en") for name in ("keyboard@1", "keyboard@2")}
    for model in models.values():
        model(texts[:10], 0)  # warm up: runtimes and memos as in a build after its first batch
    v2 = models["keyboard@2"]

    def seeded():
        rngs = example_rngs(0, v2.noise_id, v2.digest(), ids, "question")
        for rng in rngs:
            rng.random  # noqa: B018 - seeds the generator now, outside the timed noise
        return rngs

    times: dict[str, list[float]] = {"keyboard@1": [], "keyboard@2": [], "apply": [], "noise only": [], "nlpaug": []}
    digest = v2.digest()
    for _ in range(args.rounds):
        for name, model in models.items():
            times[name].append(cpu(lambda m=model: m(texts, 0, ids, "question")))
        times["apply"].append(cpu(lambda: v2.apply(NoiseInput(texts, example_rngs(0, v2.noise_id, digest, ids,
                                                                                   "question"), ids))))
        batch = NoiseInput(texts, seeded(), ids)
        times["noise only"].append(cpu(lambda batch=batch: v2.apply(batch)))
        peer = subprocess.run([args.nlpaug_python, "-c", PEER, str(texts_file)], check=True, capture_output=True,
                              text=True)
        times["nlpaug"].append(json.loads(peer.stdout.strip().splitlines()[-1]))
    median = {name: statistics.median(values) for name, values in times.items()}
    peer_time = median["nlpaug"]
    labels = {"keyboard@1": "keyboard@1 (with generators)", "keyboard@2": "keyboard@2 (with generators)",
              "apply": "keyboard@2 generators + apply", "noise only": "keyboard@2 noise only"}
    rows = [(label, f"{words / median[name]:,.0f}", f"{1e6 * median[name] / len(texts):.1f}",
             f"{peer_time / median[name]:.2f}x") for name, label in labels.items()]
    rows.append(("nlpaug 1.1.11 KeyboardAug", f"{words / peer_time:,.0f}", f"{1e6 * peer_time / len(texts):.1f}",
                 "1.00x"))
    print(f"{len(texts):,} XQuAD-en questions ({args.copies} copies, {words:,} words), rate 0.25, CPU time, median of "
          f"{args.rounds} interleaved rounds\n")
    print(publish("keyboard_vs_nlpaug", ("", "words/s", "us/question", "nlpaug time / ours"), rows,
                  notes=f"{len(texts):,} XQuAD-en questions, rate 0.25, CPU time, median of {args.rounds} rounds."))


if __name__ == "__main__":
    main()
