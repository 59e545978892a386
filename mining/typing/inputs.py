"""The inputs ``noisecraft mine typing`` fits from, read into (clean, noisy) pairs and told apart by their content.

* **parallel text**: a TSV of ``clean<TAB>noisy`` lines (a first line ``clean<TAB>noisy`` is a header), a JSONL of
  ``{"clean": ..., "noisy": ...}`` objects, or two SQuAD-format JSON files given one after the other, clean first,
  whose questions are paired by id (how NoiseQA and XQuAD release clean and typed questions);
* **GEC M2 files** (:func:`noisecraft.mining.gec_m2.read_m2`): each sentence becomes a pair whose noisy side is the
  learner's sentence and whose clean side has only its spelling and orthography edits corrected (ERRANT
  ``R:SPELL``/``R:ORTH``; NUCLE ``Mec`` when it changes the letters, case or spacing of words that resemble each
  other, not punctuation), by the sentence's first annotator;
* **misspelling lists** (any format :mod:`noisecraft.mining.misspellings` reads, ``correct<TAB>wrong`` included):
  word pairs, which give per-word edit statistics only (every listed word is misspelt: no hit rate).

A TSV is parallel text when a column of its first lines holds a space; otherwise it is a word list. Lines that are
not pairs are skipped and counted by reason, as are SQuAD questions without a partner.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rapidfuzz.distance import Levenshtein

from noisecraft.core.text_files import AUTO, decode_file, read_bytes
from noisecraft.errors import InputError
from noisecraft.mining.gec_m2 import M2Edit, M2Sentence, read_m2
from noisecraft.mining.misspellings import read_misspelling_file
from noisecraft.noise_models.typing_format import is_punctuation

InputKind = Literal["parallel", "m2", "list"]
Pair = tuple[str, str]
#: ERRANT tags of spelling and orthography (case, spacing) edits.
SPELLING_TAGS = frozenset({"R:SPELL", "R:ORTH"})
#: A NUCLE ``Mec`` edit is a spelling change when the words resemble each other this much (case and spaces aside).
MEC_RESEMBLANCE = 0.5


@dataclass
class FitInput:
    """One input (a SQuAD pair is one input naming both files): its pairs, what was skipped, and its digests."""

    paths: tuple[Path, ...]
    kind: InputKind
    pairs: list[Pair]
    skipped: Counter[str] = field(default_factory=Counter)

    def provenance(self) -> list[dict[str, object]]:
        """Each file's name, sha256 and the input's kind (the model records them)."""
        return [{"file": path.name, "sha256": hashlib.sha256(read_bytes(path)).hexdigest(), "kind": self.kind}
                for path in self.paths]


def _is_spelling_edit(edit: M2Edit, tokens: Sequence[str]) -> bool:
    """ERRANT ``R:SPELL``/``R:ORTH``; a NUCLE ``Mec`` that changes letters, case or spacing of resembling words."""
    if edit.tag in SPELLING_TAGS:
        return True
    if edit.tag != "Mec":
        return False
    wrong, right = " ".join(tokens[edit.start:edit.end]), edit.corrections[0]
    if not wrong or not right or any(is_punctuation(c) for c in wrong + right if c not in "'-"):
        return False
    a, b = wrong.replace(" ", "").lower(), right.replace(" ", "").lower()
    return a == b or Levenshtein.normalized_similarity(a, b) >= MEC_RESEMBLANCE


def m2_pair(sentence: M2Sentence) -> Pair:
    """(clean, noisy): the sentence with its first annotator's spelling edits corrected, and as the learner wrote it."""
    tokens = list(sentence.tokens)
    if not sentence.edits:
        return " ".join(tokens), " ".join(tokens)
    first = min(edit.annotator for edit in sentence.edits)
    chosen = sorted((e for e in sentence.edits if e.annotator == first and _is_spelling_edit(e, tokens)),
                    key=lambda e: (e.start, e.end))
    clean: list[str] = []
    cursor = 0
    for edit in chosen:
        if edit.start < cursor:  # overlapping edits of one annotator: the first one is kept
            continue
        clean += tokens[cursor:edit.start] + ([edit.corrections[0]] if edit.corrections[0] else [])
        cursor = edit.end
    clean += tokens[cursor:]
    return " ".join(clean), " ".join(tokens)


def _tsv_pairs(path: Path, lines: list[str]) -> FitInput:
    read = FitInput((path,), "parallel", [])
    for number, line in enumerate(lines):
        if not line.strip() or (number == 0 and line.strip().lower() == "clean\tnoisy"):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            read.skipped["not a clean<TAB>noisy line"] += 1
            continue
        read.pairs.append((parts[0], parts[1]))
    return read


def _jsonl_pairs(path: Path, lines: list[str]) -> FitInput:
    read = FitInput((path,), "parallel", [])
    for line in lines:
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict) or not isinstance(row.get("clean"), str) or not isinstance(row.get("noisy"), str):
            read.skipped["not a {\"clean\", \"noisy\"} object"] += 1
            continue
        read.pairs.append((row["clean"], row["noisy"]))
    return read


def _squad_questions(path: Path, encoding: str) -> dict[str, str]:
    text, _ = decode_file(path, encoding, what="SQuAD file")
    try:
        data = json.loads(text)
        return {str(qa["id"]): qa["question"] for article in data["data"] for paragraph in article["paragraphs"]
                for qa in paragraph["qas"]}
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(path, f"not a SQuAD-format file (data/paragraphs/qas with id and question): {exc}") from None


def squad_pairs(clean_path: Path, noisy_path: Path, encoding: str = AUTO) -> FitInput:
    """Questions of two SQuAD-format files paired by id (clean file first)."""
    clean, noisy = _squad_questions(clean_path, encoding), _squad_questions(noisy_path, encoding)
    read = FitInput((clean_path, noisy_path), "parallel", [(clean[i], noisy[i]) for i in clean if i in noisy])
    unpaired = len(clean.keys() ^ noisy.keys())
    if unpaired:
        read.skipped["question id in one SQuAD file only"] = unpaired
    return read


def _text_input(path: Path, encoding: str) -> FitInput:
    """A TSV or JSONL of pairs, an M2 file, or a misspelling list, told apart by suffix and content."""
    text, _ = decode_file(path, encoding, what="typing input")
    lines = text.removeprefix("\ufeff").split("\n")
    first = next((line for line in lines if line.strip()), "")
    if path.suffix == ".m2" or first.startswith("S "):
        pairs = [m2_pair(sentence) for sentence in read_m2(path, encoding=encoding).sentences]
        return FitInput((path,), "m2", pairs)
    if path.suffix == ".jsonl" or first.lstrip().startswith("{"):
        return _jsonl_pairs(path, lines)
    head = [line for line in lines if line.strip()][:200]
    if any(" " in column.strip() for line in head for column in line.split("\t")[:2] if "\t" in line):
        return _tsv_pairs(path, [line.rstrip("\r") for line in lines])
    listed = read_misspelling_file(path, encoding=encoding)
    read = FitInput((path,), "list", list(listed.pairs))
    if listed.skips:
        read.skipped["malformed list line"] = len(listed.skips)
    return read


def read_inputs(paths: Sequence[Path], encoding: str = AUTO) -> list[FitInput]:
    """Every input, in order; ``.json`` files are SQuAD files taken two by two (clean, then noisy)."""
    squad = [Path(p) for p in paths if Path(p).suffix == ".json"]
    if len(squad) % 2:
        raise InputError(squad[-1], "SQuAD-format files come in pairs (the clean file, then the noisy one): "
                                    f"{len(squad)} .json file(s) given")
    inputs = [squad_pairs(squad[i], squad[i + 1], encoding) for i in range(0, len(squad), 2)]
    inputs += [_text_input(Path(p), encoding) for p in paths if Path(p).suffix != ".json"]
    return inputs
