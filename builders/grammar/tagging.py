"""Words with character spans and their Penn Treebank tags, from a pluggable tagger; WordNet.

Where an error type applies is decided from part-of-speech tags (the paper used the Berkeley parser):

* ``spacy`` / ``spacy:<package>``: a spaCy pipeline (``en_core_web_sm`` by default) when one is installed;
  its tokens and ``tag_`` are used as they are.
* ``nltk``: NLTK's averaged perceptron tagger (``averaged_perceptron_tagger_eng``) on the words of
  :func:`word_spans`. Its weights are read from ``<nltk_data>/taggers/averaged_perceptron_tagger_eng/``
  (the model's ``nltk_data`` folder first, then NLTK's search path: ``NLTK_DATA``, ``~/nltk_data``, ...);
  when they are nowhere, ``nltk.download`` is tried once and a missing model is a clear error.
* ``auto`` resolves to ``spacy:en_core_web_sm`` when spaCy and that model are installed, else ``nltk``.

What a tagger decides shapes the noise, so :meth:`Tagger.identity` (the perceptron weights' digest, or
the spaCy model's name and version) enters the seed and the card.

WordNet (for word choice) is NLTK's ``wordnet`` corpus, found the same way (``<nltk_data>/corpora/wordnet``;
Debian's ``wordnet-base`` files can be copied there, with NLTK's ``lexnames`` table).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from noisecraft.errors import ConfigError
from noisecraft.extras import require

PERCEPTRON = "averaged_perceptron_tagger_eng"
PERCEPTRON_FILES = tuple(f"{PERCEPTRON}.{part}.json" for part in ("weights", "tagdict", "classes"))
DEFAULT_SPACY_MODEL = "en_core_web_sm"

#: Penn-Treebank-like words: abbreviations (``U.S.``), a clitic split off as the Treebank does (``does`` +
#: ``n't``, ``it`` + ``'s``), words with inner hyphens, dots or other apostrophes kept whole (``long-term``,
#: ``3.5``, ``o'clock``), and each other non-space character on its own (punctuation).
_WORDS = re.compile(r"(?:[a-z]\.){2,}|[a-z]+(?=n't\b)|n't\b|'(?:s|re|ve|ll|d|m)\b"
                    r"|\w+(?:[-.]\w+|'(?!(?:s|re|ve|ll|d|m)\b)\w+)*|\S", re.IGNORECASE)


class Word(NamedTuple):
    """A word of a text: ``text[start:end]`` and its Penn Treebank tag."""

    start: int
    end: int
    text: str
    tag: str


def word_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the words NLTK's tagger reads (see :data:`_WORDS`)."""
    return [m.span() for m in _WORDS.finditer(text)]


class Tagger(Protocol):
    """Anything that turns texts into tagged words with character spans."""

    def tag(self, texts: Sequence[str]) -> list[list[Word]]: ...

    def identity(self) -> dict[str, str]: ...


def _add_data_path(folder: str) -> None:
    """Put an NLTK data folder first on NLTK's search path (NLTK reads only inside its data roots)."""
    nltk = require("nltk", "grammar")
    root = _resolved(folder)
    if root not in nltk.data.path:
        nltk.data.path.insert(0, root)


@cache
def _resolved(folder: str) -> str:
    return str(Path(folder).resolve())


def _perceptron_folder(nltk_data: str) -> Path:
    """The folder holding the perceptron's three JSON files: in ``nltk_data``, else on NLTK's path (downloaded
    once if it is nowhere)."""
    if nltk_data:
        folder = Path(nltk_data) / "taggers" / PERCEPTRON
        if all((folder / name).is_file() for name in PERCEPTRON_FILES):
            return folder
        raise ConfigError(f"{nltk_data} has no NLTK perceptron tagger: expected taggers/{PERCEPTRON}/ with "
                          f"{', '.join(PERCEPTRON_FILES)}")
    import nltk

    for attempt in range(2):
        try:
            return Path(str(nltk.data.find(f"taggers/{PERCEPTRON}/")))
        except LookupError:
            if attempt == 0 and not nltk.download(PERCEPTRON, quiet=True):
                break
    raise ConfigError(f"NLTK's perceptron tagger ({PERCEPTRON}) is not installed and could not be downloaded: run "
                      f"python -m nltk.downloader {PERCEPTRON} where there is network, give nltk_data= a folder that "
                      "holds it, or install a spaCy English model (tagger=spacy)")


@dataclass(frozen=True)
class PerceptronTagger:
    """NLTK's averaged perceptron, loaded from its JSON files (read here, not through NLTK's sandboxed loader)."""

    folder: Path

    @property
    def _model(self) -> Any:
        return _load_perceptron(self.folder)

    def tag(self, texts: Sequence[str]) -> list[list[Word]]:
        model = self._model
        tagged = []
        for text in texts:
            spans = word_spans(text)
            tags = model.tag([text[s:e] for s, e in spans]) if spans else []
            tagged.append([Word(s, e, text[s:e], tag) for (s, e), (_, tag) in zip(spans, tags)])
        return tagged

    def identity(self) -> dict[str, str]:
        return {"tagger": f"nltk:{PERCEPTRON}", "tagger_digest": _digest_files(self.folder, PERCEPTRON_FILES)}


@cache
def _load_perceptron(folder: Path) -> Any:
    from nltk.tag.perceptron import PerceptronTagger as NltkPerceptron

    try:
        params = [json.loads((folder / name).read_text(encoding="utf-8")) for name in PERCEPTRON_FILES]
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{folder}: cannot read the perceptron tagger: {exc}") from exc
    tagger = NltkPerceptron(load=False)
    tagger.decode_json_params(params)
    return tagger


@cache
def _digest_files(folder: Path, names: tuple[str, ...]) -> str:
    digest = hashlib.blake2b(digest_size=8)
    for name in names:
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class SpacyTagger:
    """A spaCy pipeline's tokens and fine-grained (Penn Treebank) tags."""

    model: str

    def tag(self, texts: Sequence[str]) -> list[list[Word]]:
        nlp = _load_spacy(self.model)
        return [[Word(t.idx, t.idx + len(t.text), t.text, t.tag_) for t in doc if not t.is_space]
                for doc in nlp.pipe(texts)]

    def identity(self) -> dict[str, str]:
        meta = _load_spacy(self.model).meta
        return {"tagger": f"spacy:{meta.get('lang', 'en')}_{meta.get('name', self.model)}",
                "tagger_version": str(meta.get("version", "?"))}


@cache
def _load_spacy(model: str) -> Any:
    spacy = require("spacy", "grammar")
    try:
        return spacy.load(model, disable=["parser", "ner", "lemmatizer"])
    except OSError as exc:
        raise ConfigError(f"spaCy model {model!r} is not installed: python -m spacy download {model} "
                          "(or use tagger=nltk)") from exc


def resolve_tagger_name(name: str) -> str:
    """``auto`` -> ``spacy:en_core_web_sm`` when spaCy and that model are installed, else ``nltk``; ``spacy``
    -> ``spacy:en_core_web_sm``; anything else as given (checked)."""
    if name == "auto":
        found = importlib.util.find_spec("spacy") is not None and importlib.util.find_spec(DEFAULT_SPACY_MODEL) is not None
        return f"spacy:{DEFAULT_SPACY_MODEL}" if found else "nltk"
    if name == "spacy":
        return f"spacy:{DEFAULT_SPACY_MODEL}"
    if name == "nltk" or (name.startswith("spacy:") and name != "spacy:"):
        return name
    raise ConfigError(f"unknown tagger {name!r}: use auto, nltk, spacy or spacy:<model package>")


def load_tagger(name: str, nltk_data: str = "") -> Tagger:
    """The tagger named by a resolved name (:func:`resolve_tagger_name`)."""
    if name.startswith("spacy:"):
        return SpacyTagger(name.removeprefix("spacy:"))
    require("nltk", "grammar")
    if nltk_data:
        _add_data_path(nltk_data)
    return PerceptronTagger(_perceptron_folder(nltk_data))


def load_wordnet(nltk_data: str = "") -> Any:
    """NLTK's WordNet reader: the one in ``<nltk_data>/corpora/wordnet`` when given, else the one on NLTK's search
    path (downloaded once if it is nowhere). The folder is put back on NLTK's path on every call: NLTK reads only
    inside its data roots, and a caller may have replaced ``nltk.data.path`` since the reader was made."""
    if nltk_data:
        _add_data_path(nltk_data)
    return _wordnet_reader(nltk_data)


@cache
def _wordnet_reader(nltk_data: str) -> Any:
    """One reader per folder, so a model reads the WordNet its ``nltk_data`` names (whose digest is in its seed),
    never whichever folder NLTK's shared ``wordnet`` corpus happened to load first."""
    nltk = require("nltk", "grammar")
    folder = Path(nltk_data).resolve() / "corpora" / "wordnet" if nltk_data else None
    if folder is not None and folder.is_dir():
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        try:
            return WordNetCorpusReader(str(folder), None)
        except (OSError, LookupError) as exc:
            raise ConfigError(f"{folder}: cannot read WordNet: {exc}") from exc
    from nltk.corpus import wordnet

    for attempt in range(2):
        try:
            wordnet.ensure_loaded()
            return wordnet
        except LookupError:
            if attempt == 0 and not nltk.download("wordnet", quiet=True):
                break
    raise ConfigError("WordNet for NLTK is not installed and could not be downloaded: run python -m nltk.downloader "
                      "wordnet where there is network, or copy Debian's wordnet-base and wordnet-sense-index files "
                      "(/usr/share/wordnet) into <nltk_data>/corpora/wordnet with a lexnames file and give nltk_data=")
