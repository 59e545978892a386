"""Fidelity of ``typing@1``: fit on half of a parallel set, sample the other half's clean texts, compare with its real noisy half.

The parallel set is real learner writing: the W&I+LOCNESS (BEA-2019) M2 files' sentences, clean = the sentence with
its spelling and orthography edits corrected, noisy = the sentence as written (``noisecraft.mining.typing.inputs``).
Sentences alternate between the halves (even: fitted, odd: held back). The fit goes through ``noisecraft mine typing``
itself (a TSV of the fitted half), and both the real and the sampled held-back pairs are classified by the same
aligner, so the edit mix and the hit-rate curve compare like with like. Nothing here is tuned: the model is fitted
once and sampled once (seed 0). The fitted half's own figures are printed beside them: where the sample
differs from the held-back half as much as the two real halves differ, the gap is the data's, not the model's.

A second set, ``--jfleg``: JFLEG's dev and test learner sentences (noisy) against the same sentences spell-checked
by Enchant, as JFLEG releases them (clean: a spell-checker's guess, so some "corrections" are other words).

Run: ``python benchmarks/typing_fidelity.py [M2 FILE ... | --jfleg]`` (default: the shared corpora's W&I+LOCNESS
files).
Goal: CER, WER and the changed share within 15 % (relative) of the real noisy half; edit-type shares
within 5 points.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from results_page import publish

from noisecraft.core.stats import field_scores, format_table
from noisecraft.mining.gec_m2 import read_m2
from noisecraft.mining.typing import mine_typing
from noisecraft.mining.typing.fit import count_pairs
from noisecraft.mining.typing.inputs import m2_pair
from noisecraft.noise_models.keyboard_layouts import load_layout
from noisecraft.noise_models.registry import create
from noisecraft.noise_models.typing_format import TEXT_KINDS, WORD_KINDS, key_positions

CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"
DEFAULT = [CORPORA / "gec/wi+locness/m2/ABCN.dev.gold.bea19.m2", CORPORA / "gec/wi+locness/m2/C.train.gold.bea19.m2"]
LENGTHS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13+")


def m2_pairs(paths: list[Path]) -> list[tuple[str, str]]:
    return [m2_pair(s) for path in paths for s in read_m2(path).sentences]


def jfleg_pairs() -> list[tuple[str, str]]:
    """JFLEG dev and test: (spell-checked sentence, sentence as written), trailing spaces of the release dropped."""
    pairs = []
    for split in ("dev", "test"):
        folder = CORPORA / "gec" / "jfleg" / split
        clean = (folder / f"{split}.spellchecked.src").read_text(encoding="utf-8").splitlines()
        noisy = (folder / f"{split}.src").read_text(encoding="utf-8").splitlines()
        pairs += [(c.strip(), n.strip()) for c, n in zip(clean, noisy, strict=True)]
    return pairs


def profile(pairs: list[tuple[str, str]]) -> dict[str, object]:
    """CER, WER, changed share, edit-kind shares and hit rate by length of (clean, noisy) pairs."""
    clean, noisy = [c for c, _ in pairs], [n for _, n in pairs]
    scores = field_scores(clean, noisy)
    counts = count_pairs(pairs, [], key_positions(load_layout("qwerty")))
    total = sum(counts.edit_mix.values()) or 1
    return {"cer": scores["cer"], "wer": scores["wer"], "changed": 100 * sum(c != n for c, n in pairs) / len(pairs),
            "mix": {k: 100 * counts.edit_mix[k] / total for k in WORD_KINDS + TEXT_KINDS},
            "hits": {b: 100 * h / w if w else 0.0 for b, (w, h) in counts.hit_by_length.items()}}


def main(pairs: list[tuple[str, str]], name: str) -> int:
    """Fit on the even sentences, sample the odd ones' clean side, publish ``NAME`` (figures) and ``NAME_edits``."""
    fit, held = pairs[0::2], pairs[1::2]
    with tempfile.TemporaryDirectory() as folder:
        tsv = Path(folder) / "fit.tsv"
        tsv.write_text("".join(f"{c}\t{n}\n" for c, n in fit), encoding="utf-8")
        mine_typing([tsv]).write(Path(folder) / "model")
        model = create("typing", model=str(Path(folder) / "model"))
        sampled = model.augment([c for c, _ in held], seed=0)
    real, fake, fitted = profile(held), profile(list(zip([c for c, _ in held], sampled))), profile(fit)
    print(f"fitted on {len(fit)} sentences, compared on {len(held)} held-back sentences\n")
    rows = [(label, f"{real[key]:.3f}", f"{fake[key]:.3f}",
             f"{100 * (fake[key] - real[key]) / real[key]:+.1f} %" if real[key] else "-", f"{fitted[key]:.3f}")
            for label, key in (("CER %", "cer"), ("WER %", "wer"), ("texts changed %", "changed"))]
    worst = max(abs(fake["mix"][k] - real["mix"][k]) for k in WORD_KINDS + TEXT_KINDS)
    relative = max(abs(fake[k] - real[k]) / real[k] for k in ("cer", "wer", "changed"))
    goals = (f"Largest relative difference (CER, WER, changed): {100 * relative:.1f} % (goal: within 15 %); "
             f"largest edit-share difference: {worst:.1f} points (goal: within 5).")
    notes = f"Fitted on {len(fit)} sentences, compared on {len(held)} held-back sentences. {goals}"
    print(publish(name, ("figure", "real noisy half", "typing@1 sample", "relative difference", "(fitted half)"), rows,
                  notes=notes))
    mix = [(kind, f"{real['mix'][kind]:.1f}", f"{fake['mix'][kind]:.1f}", f"{fake['mix'][kind] - real['mix'][kind]:+.1f}",
            f"{fitted['mix'][kind]:.1f}") for kind in WORD_KINDS + TEXT_KINDS if real["mix"][kind] or fake["mix"][kind]]
    print("\n" + publish(f"{name}_edits", ("edit kind", "real share %", "sampled share %", "points", "(fitted half)"),
                         mix, notes="Share of each edit kind among all edits, real vs sampled held-back half."))
    hits = [(f"length {b}", f"{real['hits'][b]:.2f}", f"{fake['hits'][b]:.2f}", f"{fitted['hits'][b]:.2f}")
            for b in LENGTHS]
    print("\n" + format_table(("words", "real P(hit) %", "sampled P(hit) %", "(fitted half)"), hits))
    print("\n" + goals)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--jfleg"]:
        sys.exit(main(jfleg_pairs(), "typing_fidelity_jfleg"))
    sys.exit(main(m2_pairs([Path(p) for p in sys.argv[1:]] or DEFAULT), "typing_fidelity"))
