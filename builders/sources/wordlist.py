"""Word lists as a source: the canonical words of the CoLeS probe (Li, Liu & Gao, 2023).

A word list is a benchmark of single words with a label. Its rows carry the word twice: ``canonical``
stays as it is, ``noisy`` is the field a noise model perturbs, so a built config is a table of
contrastive (canonical, noisy) pairs, built, carded and loaded like every other challenge set.

``coles-words`` is the word list of the CoLeS probe: the adjectives of the Hu & Liu opinion lexicon,
labelled ``positive`` or ``negative`` by the file they are listed in. The lexicon is read in its
release format (a folder with ``positive-words.txt`` and ``negative-words.txt``: one word a line,
``;`` comment lines; read as the miners read word lists: UTF-8, a line that is not UTF-8 decoded as latin-1, as
is negative-words.txt's one latin-1 line) from ``data_file``, or, without one,
from NLTK's ``opinion_lexicon`` corpus (the same two files; ``nltk.download`` is tried once).
Adjectives are the words WordNet lists with an adjective sense (head or satellite, after WordNet's
own morphology, so ``happier`` counts) and no noun or verb sense; WordNet comes from NLTK's data path.
(The paper says only that WordNet picked the adjectives; this stricter reading lands on its BERT type
shares, where "any adjective sense" keeps 50 % more words, common ones the vocabulary holds whole.) Words listed in both
files (``envious``...) have no single label and are left out, as are entries with characters other
than letters (``a+``, ``2-faced``); the card's origin line counts what was kept.

The split says which noise the rows are for, and it is the row's ``noise`` column:

* ``typo``: adjectives longer than four letters (the paper's typo process edits one interior
  character, which a short word hardly has), each in ``TYPO_VARIANTS`` rows (``variant`` 0, 1), so a
  typo model applied with ``rate=1`` gives two independently drawn variants per word;
* ``reduplication`` and ``abbreviation``: every adjective once; the noise is a mined dictionary
  (``reduplication(dictionary=...)`` from ``noisecraft mine reduplication``; an abbreviation list
  through ``misspelling(dictionary=...)``).

Row ids are ``<word>`` or ``<word>/<variant>``: stable, so per-example seeds do not depend on order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from noisecraft.core.citations import OPINION_LEXICON_CITATION
from noisecraft.core.schema import FeatureSpec, class_label, value
from noisecraft.core.text_files import AUTO, text_lines
from noisecraft.errors import ConfigError, InputError
from noisecraft.extras import require
from noisecraft.sources.base import SourceAdapter, SourceData, SourceInfo

LABELS = ("negative", "positive")
LEXICON_FILES = {"negative": "negative-words.txt", "positive": "positive-words.txt"}
SPLITS = ("typo", "reduplication", "abbreviation")
#: Typo variants per word (the paper: two variants per typo model) and the shortest word a typo split keeps.
TYPO_VARIANTS = 2
TYPO_MIN_LETTERS = 5

COLES_WORDS = SourceInfo(
    name="coles-words", hub_id="", task_category="text-classification", license="other",
    citation=OPINION_LEXICON_CITATION, default_split="typo", default_fields=("noisy",), class_label="label",
    pretty="CoLeS canonical words (adjectives of the Hu & Liu opinion lexicon)",
)


def read_lexicon_file(path: Path) -> list[tuple[int, str]]:
    """``(line, word)`` of one Hu & Liu lexicon file: ``;`` lines are comments, blank lines skipped."""
    words = []
    for number, line in text_lines(path, AUTO, what="lexicon file"):
        word = line.strip()
        if word and not word.startswith(";"):
            if any(ch.isspace() for ch in word):
                raise InputError(path, f"{word!r} is not one word (one word a line expected)", f"line {number}")
            words.append((number, word))
    if not words:
        raise InputError(path, "no words (only comments or blank lines)")
    return words


def read_lexicon(folder: Path) -> dict[str, str]:
    """``{word: label}`` of a lexicon folder; words in both files and non-letter entries left out."""
    labelled: dict[str, set[str]] = {}
    for label, name in LEXICON_FILES.items():
        path = folder / name
        if not path.is_file():
            raise ConfigError(f"{folder} is not a Hu & Liu opinion lexicon folder: it lacks {name}")
        for _, word in read_lexicon_file(path):
            labelled.setdefault(word, set()).add(label)
    return {word: labels.pop() for word, labels in sorted(labelled.items()) if len(labels) == 1 and word.isalpha()}


def nltk_corpus(name: str) -> Path:
    """The folder of NLTK corpus ``name`` on NLTK's data path (``NLTK_DATA``, ``~/nltk_data``...),
    downloaded once when it is nowhere; a clear error when that fails (no network)."""
    nltk = require("nltk", "grammar")
    for attempt in range(2):
        try:
            return Path(str(nltk.data.find(f"corpora/{name}")))
        except LookupError:
            if attempt == 0 and nltk.download(name, quiet=True):
                continue
            raise ConfigError(f"NLTK corpus {name!r} not found and could not be downloaded: run "
                              f"python -m nltk.downloader {name} where there is network, or put it under a folder "
                              "named in NLTK_DATA (README, 'CoLeS probe')") from None
    raise AssertionError("unreachable")


def wordnet_adjectives(words: list[str]) -> tuple[set[str], str]:
    """The words that are adjectives by WordNet, and WordNet's version: an adjective sense (head ``a`` or
    satellite ``s``) and no noun or verb sense, so that the word is read as an adjective out of context
    (``cool``, ``fine`` and ``kind`` are also nouns or verbs and are left out)."""
    nltk_corpus("wordnet")
    from nltk.corpus import wordnet

    def adjective(word: str) -> bool:
        return bool(wordnet.synsets(word, pos=wordnet.ADJ)) and not any(
            wordnet.synsets(word, pos=pos) for pos in (wordnet.NOUN, wordnet.VERB))

    return {w for w in words if adjective(w)}, wordnet.get_version()


class WordListAdapter(SourceAdapter):
    """The CoLeS canonical words, from a lexicon folder or NLTK's ``opinion_lexicon``."""

    info = COLES_WORDS

    def feature_spec(self) -> FeatureSpec:
        return {"canonical": value("string"), "noisy": value("string"), "noise": value("string"),
                "variant": value("int32"), "label": class_label(LABELS), "id": value("string")}

    def read_file(self, path: Path, lang: str, split: str) -> list[dict[str, Any]]:
        rows, _ = self._rows(path, split)
        return rows

    def _rows(self, folder: Path, split: str) -> tuple[list[dict[str, Any]], str]:
        lexicon = read_lexicon(folder)
        adjectives, version = wordnet_adjectives(list(lexicon))
        variants = TYPO_VARIANTS if split == "typo" else 1
        rows = []
        for word in sorted(adjectives):
            if split == "typo" and len(word) < TYPO_MIN_LETTERS:
                continue
            for variant in range(variants):
                rows.append({"canonical": word, "noisy": word, "noise": split, "variant": variant,
                             "label": LABELS.index(lexicon[word]), "id": f"{word}/{variant}" if variants > 1 else word})
        words = len(rows) // variants
        note = (f"{words} adjectives (WordNet {version}) of the {len(lexicon)} single-label letter-only words of the "
                f"Hu & Liu opinion lexicon{' longer than four letters' if split == 'typo' else ''}"
                f"{f', {variants} rows each' if variants > 1 else ''}")
        return rows, note

    def load(self, lang: str, split: str | None = None, data_file: Path | None = None,
             revision: str | None = None) -> SourceData:
        if lang != "en":
            raise ConfigError(f"coles-words is English only, got lang {lang!r}")
        split = split or self.info.default_split
        if split not in SPLITS:
            raise ConfigError(f"coles-words has no split {split!r}; its splits name the noise: {', '.join(SPLITS)}")
        if revision is not None:
            raise ConfigError("coles-words is read from a lexicon folder or NLTK's opinion_lexicon: --revision does not apply")
        if data_file is not None and not data_file.is_dir():
            raise ConfigError(f"--data-file {data_file} must be the opinion lexicon folder "
                              f"(with {' and '.join(LEXICON_FILES.values())})")
        folder = data_file or nltk_corpus("opinion_lexicon")
        rows, note = self._rows(folder, split)
        if not rows:
            raise InputError(folder, f"no adjective left for split {split!r}")
        where = "lexicon folder" if data_file is not None else "NLTK's opinion_lexicon corpus"
        return SourceData(self.info, lang, split, f"{where}: {note}", rows, self.feature_spec())
