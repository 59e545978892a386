"""Tests that catch hand-made mutations of the core which the rest of the suite could miss: each one
names the mutation it guards against."""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

import noisecraft as nc
from noisecraft.building.noising import _remap_token
from noisecraft.core.edits import Edit
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.stats import FieldScores
from noisecraft.dataset.noise_dictionary import NoiseDictionary
from noisecraft.dataset.repo import atomic_write_text
from noisecraft.noise_models.keyboard_layouts import builtin_layouts


def test_remap_token_follows_length_changes_inside_and_before_a_token():
    # "ab cd ef": token "cd" is [3, 5)
    grow_inside = [Edit(3, 4, "c", "ccc", "x")]
    assert _remap_token(3, 5, grow_inside) == (3, 7)  # mutation: ignoring the length change inside the token
    shrink_before = [Edit(0, 2, "ab", "a", "x")]
    assert _remap_token(3, 5, shrink_before) == (2, 4)
    assert _remap_token(3, 5, [Edit(4, 6, "d ", "d", "x")]) is None  # mutation: an edit crossing the token end
    assert _remap_token(3, 5, [Edit(2, 4, " c", "c", "x")]) is None  # ... or its start
    assert _remap_token(3, 5, [Edit(5, 5, "", "!", "x")]) == (3, 5)  # an insertion after the token stays outside


def _letter_like(text: str) -> bool:
    return bool(text) and all(unicodedata.category(ch)[0] in "LM" for ch in text)  # letters and (Indic) vowel signs


def test_noiseqa_neighbours_are_letters_on_every_layout():
    for layout in builtin_layouts().values():
        for char, neighbours in layout.row_neighbours().items():
            assert _letter_like(char) and all(map(_letter_like, neighbours)), (layout.name, char, neighbours)


def test_dictionary_draws_follow_the_counts():
    dictionary = NoiseDictionary.from_pairs("t", [("the", "teh", 6.0), ("the", "th", 3.0), ("the", "hte", 1.0)])
    draws = Counter(dictionary.sample("the", ExampleRng(seed)) for seed in range(20_000))
    for form, share in (("teh", 0.6), ("th", 0.3), ("hte", 0.1)):
        assert abs(draws[form] / 20_000 - share) < 4 * math.sqrt(share * (1 - share) / 20_000)  # mutation: skewed draw


def test_identity_pairs_are_never_kept():
    dictionary = NoiseDictionary.from_pairs("t", [("the", "the", 5.0), ("the", "teh", 1.0)])
    assert dictionary.entries["the"][0] == ("teh",)


def test_the_dictionary_content_enters_the_seed(tmp_path: Path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("the\tteh\t1\nthe\tth\t1\n", encoding="utf-8")
    b.write_text("the\tteh\t1\nthe\tth\t2\n", encoding="utf-8")
    models = [nc.noise("misspelling", dictionary=str(p), rate=1.0) for p in (a, b)]
    assert models[0].digest() != models[1].digest()  # mutation: dictionary digest left out of the seed


def test_bleu_is_not_symmetric():
    short, long = "the cat sat", "the cat sat on the mat today"
    forward, backward = FieldScores(), FieldScores()
    forward.add(long, short)
    backward.add(short, long)
    assert forward.scores()["bleu"] != backward.scores()["bleu"]  # mutation: reference and hypothesis swapped


def test_an_interrupted_text_write_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "card.md"
    path.write_text("old", encoding="utf-8")

    def half(self, text, encoding=None):
        with open(self, "w", encoding=encoding) as handle:
            handle.write(text[:2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(path, "new content")
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "old"  # mutation: a non-atomic write
    assert [p.name for p in tmp_path.iterdir()] == ["card.md"]


def test_params_enter_the_seed():
    text = ["one two three four five six seven eight nine ten"] * 30
    a = nc.noise("keyboard", rate=0.5).augment(text, seed=1)
    b = nc.noise("keyboard", rate=0.5000001).augment(text, seed=1)
    assert a != b  # mutation: params digest left out of the seed (same draws, same thresholds almost everywhere)


def _chain_job(fields=("sentence2",)):
    from recording_model import Recorder

    from noisecraft.building.noising import NoiseJob
    from noisecraft.core.labels import LabelLayout

    layout = LabelLayout(pair_fields=("sentence1", "sentence2"), class_label="label")
    return NoiseJob(nc.chain(nc.noise("keyboard", rate=1.0), Recorder()), 0, fields, layout)


CHAIN_ROWS = [{"id": "a", "sentence1": "The cat sat on the mat .", "sentence2": "A cat was sitting there .", "label": 1},
              {"id": "b", "sentence1": "It rained all day .", "sentence2": "The sun was out .", "label": 0}]


def test_a_chain_forwards_labels_ids_and_the_noisy_pair_to_its_last_step():
    from recording_model import SEEN

    from noisecraft.building.noising import perturb_rows

    SEEN.clear()
    kept, _ = perturb_rows(_chain_job(), CHAIN_ROWS)
    [(kind, batch)] = SEEN
    assert kind == "apply" and batch.labels == (1, 0)  # mutation: a chain step called without the labels
    assert batch.ids == ("a", "b")  # ... or without the ids
    for pair, text, row in zip(batch.pairs, batch.texts, CHAIN_ROWS):
        # mutation: the pair context dropped, or left with the clean text after the first step changed it
        assert pair.first == row["sentence1"] and pair.target == 1 and pair.second == text != row["sentence2"]
    assert [r["sentence2"] for r in kept] == [t + "!" for t in batch.texts]


def test_a_chain_keeps_its_last_steps_row_columns():
    from noisecraft.building.noising import perturb_rows

    kept, _ = perturb_rows(_chain_job(), CHAIN_ROWS)
    assert [r["noise_seen_label"] for r in kept] == [1, 0]  # mutation: the chain drops the per-row columns
    assert all(r["original_sentence2"] == row["sentence2"] for r, row in zip(kept, CHAIN_ROWS))
    assert all(e["kind"].endswith("recorder") or "keyboard" in e["kind"] for r in kept for e in r["noise_edits"])
