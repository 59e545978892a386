"""Per-label phrase-based generators: training pairs from a task's training split, trained systems stored in the
cache by content, and decoding through them with every output cached.

A task says which source holds its training split and which text is "translated" into which (:data:`TASKS`).
The training pairs are read through the source's own adapter (the original GLUE/XNLI-MT file, or the Hub copy),
tokenised into words (:func:`noisecraft.core.text_units.word_tokens`) and grouped by label. A label's system (its
phrase table and language model) is stored under ``<cache>/pbsmt/<digest>/`` where the digest covers the
label's training pairs, the training settings and this module's :data:`TRAINER_VERSION`, so a rebuild, another
seed or another config with the same training data trains nothing; it is written into a temporary folder and
renamed into place, so an interrupted training leaves nothing half-written.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from noisecraft.core.params import file_digest
from noisecraft.core.text_units import word_tokens
from noisecraft.errors import ConfigError
from noisecraft.pbsmt.arpa import write_arpa
from noisecraft.pbsmt.decoder import PhraseDecoder
from noisecraft.pbsmt.phrase_table import read_table, score_phrases, symmetrised_alignments, write_table
from noisecraft.runtime.cache import ResultCache, cache_root, cached_map

#: Bumped when training would give a different system for the same pairs and settings.
TRAINER_VERSION = 1


@dataclass(frozen=True)
class Task:
    """Where a task's training pairs come from: the source, and the first/second text fields (``second`` empty:
    a single-text task whose sentences are split into a first and a second half)."""

    source: str
    first: str
    second: str
    label_names: tuple[str, ...]

    @property
    def halves(self) -> bool:
        """Whether the task is single-text (its sentences are cut in two halves)."""
        return not self.second


TASKS = {
    "mnli": Task("glue/mnli", "premise", "hypothesis", ("entailment", "neutral", "contradiction")),
    "qqp": Task("glue/qqp", "question1", "question2", ("not_duplicate", "duplicate")),
    "sst2": Task("glue/sst2", "sentence", "", ("negative", "positive")),
    "xnli": Task("xnli", "premise", "hypothesis", ("entailment", "neutral", "contradiction")),
}


def halves(tokens: Sequence[str]) -> tuple[list[str], list[str]]:
    """A single text's first and second half (the first is the shorter one when the length is odd)."""
    cut = len(tokens) // 2
    return list(tokens[:cut]), list(tokens[cut:])


@dataclass(frozen=True)
class Settings:
    """What decides a trained system besides its pairs."""

    ibm_iterations: int
    max_phrase_length: int
    translations: int
    lm_order: int


def read_training_pairs(task: str, lang: str, data_file: str) -> dict[int, list[tuple[list[str], list[str]]]]:
    """``label -> [(first tokens, second tokens)]`` of the task's training split (``data_file`` in the original
    format, or the Hub copy when empty). Rows whose text has fewer than two words cannot give two halves
    (single-text tasks) and are skipped."""
    from noisecraft.sources.registry import load_source

    spec = TASKS[task]
    data = load_source(spec.source, lang, "train", Path(data_file) if data_file else None)
    pairs: dict[int, list[tuple[list[str], list[str]]]] = {}
    for position, row in enumerate(data.rows):
        label = row["label"]
        if not isinstance(label, int) or label < 0:
            raise ConfigError(f"{data.origin}: row {position + 1} (id {row['id']!r}) has no label: pbsmt trains one "
                              "generator per label, so its training data must be labelled")
        first = word_tokens(row[spec.first], lang)
        if spec.halves:
            if len(first) < 2:
                continue
            first, second = halves(first)
        else:
            second = word_tokens(row[spec.second], lang)
        pairs.setdefault(label, []).append((first, second))
    return pairs


def rows_digest(pairs: dict[int, list[tuple[list[str], list[str]]]]) -> str:
    """Digest of training pairs read from the Hub (a local file is identified by its bytes instead)."""
    h = hashlib.blake2b(digest_size=12)
    for label in sorted(pairs):
        for first, second in pairs[label]:
            h.update(json.dumps([label, first, second], ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def train(pairs: Sequence[tuple[Sequence[str], Sequence[str]]], settings: Settings, folder: Path) -> None:
    """Train one system on ``pairs`` into ``folder`` (``phrases.tsv`` and ``lm.arpa``), atomically."""
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    alignments = symmetrised_alignments(pairs, settings.ibm_iterations)
    write_table(score_phrases(pairs, alignments, settings.max_phrase_length, settings.translations),
                tmp / "phrases.tsv")
    write_arpa([second for _, second in pairs], settings.lm_order, tmp / "lm.arpa")
    try:
        os.replace(tmp, folder)
    except OSError:  # another process stored the same system first: keep that one
        shutil.rmtree(tmp, ignore_errors=True)
        if not folder.is_dir():
            raise


class LabelGenerators:
    """The trained systems of one task's training data, one per label, trained on first use and decoded with a
    cache of outputs (so a new seed decodes nothing)."""

    def __init__(self, task: str, lang: str, data_file: str, settings: Settings, stack_size: int,
                 distortion_factor: float, describe: str) -> None:
        self.task, self.lang, self.data_file, self.settings = task, lang, data_file, settings
        self.stack_size, self.distortion_factor, self.describe = stack_size, distortion_factor, describe
        self._pairs: dict[int, list[tuple[list[str], list[str]]]] | None = None
        self._training_digest: str | None = None
        self._decoders: dict[int, PhraseDecoder] = {}

    def pairs(self) -> dict[int, list[tuple[list[str], list[str]]]]:
        """Training pairs by label (read once)."""
        if self._pairs is None:
            self._pairs = read_training_pairs(self.task, self.lang, self.data_file)
        return self._pairs

    def training_digest(self) -> str:
        """What identifies the training data: the bytes of the local file, or the pairs read from the Hub."""
        if self._training_digest is None:
            self._training_digest = file_digest(self.data_file) if self.data_file else rows_digest(self.pairs())
        return self._training_digest

    def digest(self, label: int) -> str:
        """The name of ``label``'s stored system: training data, task, language, label, settings, trainer version."""
        key = {"data": self.training_digest(), "task": self.task, "lang": self.lang, "label": label,
               "trainer": TRAINER_VERSION, **self.settings.__dict__}
        return hashlib.blake2b(json.dumps(key, sort_keys=True).encode(), digest_size=12).hexdigest()

    def stored(self, label: int) -> Path:
        """Where ``label``'s system is (or will be) stored."""
        return cache_root() / "pbsmt-systems" / self.digest(label)

    def check_trainable(self, labels: Sequence[int]) -> None:
        """Every label whose system is not stored yet has training pairs (checked before any training starts);
        else an error naming the label and the training data."""
        for label in sorted(set(labels)):
            if not (self.stored(label) / "lm.arpa").is_file() and not self.pairs().get(label):
                names = TASKS[self.task].label_names
                name = names[label] if label < len(names) else str(label)
                raise ConfigError(f"{self.describe}: label {name!r} has no training pairs in "
                                  f"{self.data_file or 'the Hub training split'}")

    def folder(self, label: int) -> Path:
        """Where ``label``'s system is stored, trained there first when missing."""
        folder = self.stored(label)
        if not (folder / "lm.arpa").is_file():
            self.check_trainable([label])
            folder.parent.mkdir(parents=True, exist_ok=True)
            train(self.pairs()[label], self.settings, folder)
        return folder

    def decoder(self, label: int) -> PhraseDecoder:
        if label not in self._decoders:
            folder = self.folder(label)
            self._decoders[label] = PhraseDecoder(read_table(folder / "phrases.tsv"), folder / "lm.arpa",
                                                  self.stack_size, self.distortion_factor)
        return self._decoders[label]

    def outputs(self, labels: Sequence[int], sources: Sequence[Sequence[str]],
                progress: Callable[[int], Any] | None = None) -> list[list[str]]:
        """The generated target tokens for each ``(label, source tokens)``, decoded once and cached."""
        out: list[list[str]] = [[] for _ in sources]
        self.check_trainable(labels)
        for label in sorted(set(labels)):
            rows = [i for i, row_label in enumerate(labels) if row_label == label]
            cache = ResultCache("pbsmt-outputs", {"system": self.digest(label), "stack_size": self.stack_size,
                                          "distortion_factor": self.distortion_factor, "decoder": TRAINER_VERSION,
                                          "nltk": _version("nltk"), "kenlm": _version("kenlm")})

            def compute(missing: list[Any], store: Callable[[list[Any], Sequence[Any]], None],
                        label: int = label) -> list[list[str]]:
                decoder = self.decoder(label)
                results = []
                for start in range(0, len(missing), 64):
                    chunk = missing[start:start + 64]
                    done = [decoder.translate(source) for source in chunk]
                    store(chunk, done)
                    results.extend(done)
                    if progress is not None:
                        progress(len(chunk))
                return results

            for i, tokens in zip(rows, cached_map(cache, [list(sources[i]) for i in rows], compute)):
                out[i] = tokens
        return out


def _version(distribution: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "absent"
