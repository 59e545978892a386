"""Natural noise: inject forms that people really produced, from mined dictionaries.

* ``wikiedit@2`` (Stickland et al., 2023, exactly): in each text, ``ceil(rate x words)`` of the words
  that have an entry in a Wikipedia-edit dictionary (all of them when there are fewer) are picked
  uniformly at random and replaced by a noisy form drawn by its count. By default a text that got
  no edit is a failure (its row is dropped and counted with the reason), as the paper keeps only
  noised sentences; ``drop_unedited=false`` keeps it unchanged. A pair that differs only in case
  (``us -> US``) keeps the dictionary's case, and a form that would leave the word as it is is
  never drawn, so every edit changes the text. Words are the units the miner keys its dictionary
  on (:func:`wikiedit_word_spans`): in Thai, Chinese and Japanese the segmenter's words (the miner
  uses the same function); elsewhere Moses tokens, which keep hyphenated compounds, abbreviations
  and numbers whole but split at apostrophes (``long-term``, ``U.S.``; ``doesn't`` is ``doesn`` + ``t``).
* ``wikiedit@1`` (kept so that published sets regenerate): tokens are visited in a random order and
  each one found in the dictionary is replaced by a form drawn by probability (case matched to the
  word, so a case-only pair can be a no-op), until ``round(rate x words)`` are replaced or no
  candidate is left.
* ``misspelling`` (NoiseQA's natural-misspelling placement experiments): each word that has a
  listed misspelling and matches ``where`` (``all``, ``function`` or ``content`` words, or the
  words of a ``listed`` file) is replaced with probability ``rate``.
* ``reduplication`` (the CoLeS protocol; lengthening studied by Brody & Diakopoulos, 2011): each
  word, with probability ``rate``, is lengthened the way tweets
  lengthen it: a mined variant of that word when the dictionary has one, else one of its vowels or
  its last letter repeated ``extra_letters`` more times, so the word stays recognisable.

Case follows the original word (``Receive`` -> ``Recieve``), except for ``wikiedit@2``'s case-only
pairs. Words touching protected spans are left alone. The dictionary's content digest (its loaded
words, forms and weights, never its path) is part of the parameters, so a set built from a
different dictionary never claims the same seed stream; the runtime is reloaded when a dictionary
file changes (:meth:`~noisecraft.noise_models.base.NoiseModel.runtime`).

A dictionary that matched nothing is never silent: :meth:`_DictionaryNoise.build_warnings` turns a
finished build's statistics into the warnings the pipeline prints and records.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from noisecraft.core.citations import LENGTHENING_CITATION, NOISEQA_CITATION, WIKIEDIT_CITATION
from noisecraft.core.edits import Edit, Noised, noised_from_edits, overlaps
from noisecraft.core.params import param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_files import text_lines
from noisecraft.core.text_units import SEGMENTED_LANGUAGES, match_case, segmentation_note, word_pattern, word_spans
from noisecraft.dataset.noise_dictionary import (
    DictionaryTable,
    NoiseDictionary,
    check_kind,
    dictionary_from_rows,
    read_dictionary_rows,
)
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.per_word import noise_each_word

PLACEMENTS = ("all", "function", "content", "listed")
VOWELS = frozenset("aeiouyAEIOUY")


#: Failure reasons of ``wikiedit@2`` for a text that got no edit (the pipeline drops and counts them).
NO_DICTIONARY_WORD = "wikiedit: no word of this text is in the dictionary"
NO_EDITABLE_WORD = "wikiedit: every word of this text in the dictionary is protected or has no form that changes it"
#: Warn when more than this share of a build's rows was dropped because the dictionary did not cover them.
DROPPED_WARNING_SHARE = 0.5


def _required(dictionary: str | None) -> str:
    if not dictionary:
        raise ConfigError("this noise needs a dictionary: give dictionary= (a mined folder, a Hub repo id or a TSV)")
    return dictionary


def _digest(dictionary: NoiseDictionary) -> str:
    h = hashlib.blake2b(digest_size=8)
    for word, (forms, cumulative) in dictionary.entries.items():
        h.update(repr((word, forms, cumulative)).encode("utf-8"))
    return h.hexdigest()


def _lookup(dictionary: NoiseDictionary, word: str) -> str | None:
    """The dictionary key for ``word``: itself, or its lower-case form for capitalised words."""
    if word in dictionary:
        return word
    lower = word.lower()
    return lower if lower != word and lower in dictionary else None


@dataclass(frozen=True)
class NaturalRuntime:
    """A loaded dictionary (``None``: reduplication without one), its digest, and the placement."""

    dictionary: NoiseDictionary | None
    digest: str
    typos_only: bool = False
    eligible: frozenset[str] | None = None


@dataclass(frozen=True)
class _DictionaryNoise(NoiseModel):
    """Shared loading of the dictionary named by the parameters."""

    rate: float = param(0.25, "per-word probability of a replacement", min=0.0, max=1.0)
    dictionary: str = param("", "a folder made by `noisecraft mine`, a Hub dataset repo id (org/name) or a TSV "
                                "'correct<TAB>noisy[<TAB>count]'", file="dictionary")
    dictionary_config: str | None = param(None, "config of a mined dictionary folder or Hub repo", file="dictionary")
    lang: str = param("en", "language of the dictionary rows to use (set by the build)")

    #: The ``kind`` of the edits this model records (how the statistics tell its edits apart in a chain).
    edit_kind: ClassVar[str]
    #: The mined dictionaries it reads (``noisecraft mine KIND``); plain pairs (a TSV) serve any model.
    dictionary_kinds: ClassVar[tuple[str, ...]]

    def _table(self) -> DictionaryTable:
        table = read_dictionary_rows(_required(self.dictionary), self.dictionary_config)
        check_kind(table, self.dictionary_kinds, self.name)
        return table

    def load(self) -> NaturalRuntime:
        table = self._table()
        loaded = dictionary_from_rows(table, self.lang)
        return NaturalRuntime(loaded, _digest(loaded))

    def _dictionary_name(self) -> str:
        config = f" config `{self.dictionary_config}`" if self.dictionary_config else ""
        return f"`{self.dictionary}`{config} ({len(self._dictionary)} {self.lang} words)"

    def _edits_of_this_model(self, stats: Mapping[str, Any]) -> int:
        """This model's edits in a build's statistics: ``edits_by_kind[edit_kind]`` when the statistics
        count edits by kind (a chain), else every edit (a build of this model alone)."""
        by_kind = stats.get("edits_by_kind")
        return int(by_kind.get(self.edit_kind, 0)) if isinstance(by_kind, Mapping) else int(stats.get("edits", 0))

    def build_warnings(self, stats: Mapping[str, Any]) -> list[str]:
        """Warnings about a finished build, from its statistics (``rows_in``, ``rows``, ``edits``,
        ``dropped``; ``edits_by_kind`` when there is one): the dictionary matched no word of the data
        (``edits == 0`` with rows kept), so the "noisy" set equals the source. The pipeline prints each
        one loudly and records it in the manifest and card; an empty list means nothing to say."""
        if self._dictionary is None or not stats.get("rows") or self._edits_of_this_model(stats):
            return []
        return [f"{self.noise_id}: the dictionary {self._dictionary_name()} matched no word of the "
                f"{stats.get('rows_in', stats['rows'])} input rows: this config is the source unchanged. Check "
                "dictionary=, dictionary_config= and the build's language."]

    @property
    def _dictionary(self) -> NoiseDictionary:
        return self.runtime().dictionary

    def params(self) -> dict[str, object]:
        return {**super().params(), "dictionary_digest": self.runtime().digest}

    def seed_params(self) -> dict[str, object]:
        return {**super().seed_params(), "dictionary_digest": self.runtime().digest}


@dataclass(frozen=True)
class WikiEditNoise(_DictionaryNoise):
    """Replace a target fraction of words with forms mined from Wikipedia edits."""

    rate: float = param(0.25, "target share of words replaced (Stickland et al.: 0.1-0.5)", min=0.0, max=1.0)
    only_typos: bool = param(True, "use only pairs the miner flagged likely_typo (false: every mined pair)")

    name: ClassVar[str] = "wikiedit"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = WIKIEDIT_CITATION

    edit_kind: ClassVar[str] = "wikiedit"
    dictionary_kinds: ClassVar[tuple[str, ...]] = ("wikiedits", "misspellings")

    def load(self) -> NaturalRuntime:
        """With ``only_typos``, the pairs flagged ``likely_typo`` by the miner; a dictionary without
        that flag (a TSV, a misspelling list) is used whole, and the card says so."""
        table = self._table()
        filtered = self.only_typos and bool(table.rows) and "likely_typo" in table.rows[0]
        loaded = dictionary_from_rows(table, self.lang, {"likely_typo": True} if filtered else None)
        return NaturalRuntime(loaded, _digest(loaded), typos_only=filtered)

    def describe(self) -> str:
        kept = "pairs flagged likely_typo" if self.runtime().typos_only else "all pairs of the dictionary"
        return (f"Natural noise from Wikipedia edit history ({kept}; {len(self._dictionary)} words in `{self.dictionary}`"
                f"{f' config `{self.dictionary_config}`' if self.dictionary_config else ''}): words are visited in a "
                f"random order and those in the dictionary are replaced by a mined noisy form, drawn by probability, "
                f"until {self.rate:.0%} of the words are replaced or no candidate is left (see the achieved edit rate).")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        dictionary = self._dictionary
        finditer = word_pattern().finditer
        results = []
        for index, text in enumerate(texts):
            spans = protected[index] if protected else ()
            rng = rngs[index]
            words = list(finditer(text))
            target = int(self.rate * len(words) + 0.5)
            order = list(range(len(words)))
            rng.shuffle(order)
            chosen: list[Edit] = []
            for i in order:
                if len(chosen) >= target:
                    break
                match = words[i]
                key = _lookup(dictionary, match.group())
                if key is None or overlaps(match.start(), match.end(), spans):
                    continue
                noisy = match_case(match.group(), dictionary.sample(key, rng))
                chosen.append(Edit(match.start(), match.end(), match.group(), noisy, "wikiedit"))
            results.append(noised_from_edits(text, sorted(chosen)))
        return results


@cache
def _exact_rate(rate: float) -> Fraction:
    """``rate`` as the decimal it was written as (``0.28`` is 7/25, not the binary float just above it)."""
    return Fraction(repr(rate))


def edit_count(rate: float, words: int) -> int:
    """``ceil(rate x words)``, computed exactly on the decimal rate: 0.28 x 25 words is 7 edits, where the
    float product 7.000000000000001 would give 8."""
    return math.ceil(_exact_rate(rate) * words)


def changing_forms(dictionary: NoiseDictionary, word: str, key: str) -> dict[str, float]:
    """The spellings ``word`` (found under ``key``) can take, with their weights, leaving out those equal
    to ``word``. A case-only pair (``us -> US``) keeps the dictionary's case, since the case is the
    noise; other forms take the case of ``word`` (:func:`match_case`). Forms that end up spelled the
    same are merged, in the dictionary's order (most probable first)."""
    forms: dict[str, float] = {}
    for form, weight in dictionary.weighted_forms(key):
        spelled = form if form.lower() == key.lower() else match_case(word, form)
        if spelled != word:
            forms[spelled] = forms.get(spelled, 0.0) + weight
    return forms


def draw(forms: Mapping[str, float], rng: ExampleRng) -> str:
    """One of ``forms`` (non-empty), with probability proportional to its weight."""
    return list(forms)[rng.weighted(list(forms.values()))]


#: Where Moses (the miner's tokenizer for languages written with spaces) splits a word that
#: :func:`~noisecraft.core.text_units.word_spans` keeps whole: at the apostrophes ``'`` ``’`` and the Unicode hyphens
#: ``‐`` ``‑``. It keeps ASCII hyphens (``long-term``), ``ʼ`` (a letter), ``U.S.``, ``3.5`` and ``1,000`` whole.
_MOSES_SPLITS = re.compile("['\u2019\u2010\u2011]")


def wikiedit_word_spans(text: str, lang: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the words ``wikiedit@2`` counts and may replace: the units the Wikipedia miner
    (:mod:`noisecraft.mining.wiki_text`) keys its dictionary on, so that a mined key can match.

    * Thai, Chinese and Japanese: :func:`~noisecraft.core.text_units.word_spans`, the segmenter's words; the miner
      tokenises with the same function, so keys and words agree by construction.
    * Languages written with spaces: the miner uses Moses tokens, so a word here is a
      :func:`~noisecraft.core.text_units.word_spans` word split where Moses splits it (:data:`_MOSES_SPLITS`):
      ``long-term``, ``U.S.`` and ``3.5`` whole as in the other version-2 models, but ``Luther's`` is
      ``Luther`` + ``s`` (Moses: ``Luther`` ``'s``) and ``doesn't`` is ``doesn`` + ``t`` (``doesn`` ``'t``), so
      the mined key ``Luther`` matches. On XQuAD (8 languages) these units are Moses tokens (the clitic's
      apostrophe aside) for 99.4-99.9 % of words, against 95.5-99.9 % for unsplit ``word_spans`` words
      (possessives, Turkish ``Ankara'da``) and 96-99 % for the version-1 regex (``long-term`` in two).
    """
    spans = word_spans(text, lang)
    if lang in SEGMENTED_LANGUAGES:
        return spans
    units: list[tuple[int, int]] = []
    for start, end in spans:
        for split in _MOSES_SPLITS.finditer(text, start, end):
            if split.start() > start:
                units.append((start, split.start()))
            start = split.end()
        if end > start:
            units.append((start, end))
    return units


def wikiedit_word_note(lang: str) -> str:
    """The sentence a card prints about what ``wikiedit@2`` calls a word in ``lang`` (its segmenter, named)."""
    if lang in SEGMENTED_LANGUAGES:
        return (f"{segmentation_note(lang)} The Wikipedia miner (`noisecraft mine wikiedits`) segments with the same "
                "function, so a dictionary it mined with this segmenter (its card names it) matches whole words.")
    return ("Words are the Moses tokens the Wikipedia miner keys its dictionary on: hyphenated compounds, "
            "abbreviations and numbers are whole (`long-term`, `U.S.`), a word is split at an apostrophe "
            "(`doesn't` is `doesn` + `t`, `Luther's` is `Luther` + `s`).")


@dataclass(frozen=True)
class WikiEditNoiseV2(WikiEditNoise):
    """Stickland et al.'s injection: ``ceil(rate x words)`` dictionary words per text, texts left
    unedited dropped (by default), case-only pairs kept as mined."""

    rate: float = param(0.25, "share of each text's words replaced: ceil(rate x words) of the words that are in the "
                              "dictionary, or all of them when fewer (Stickland et al.: 0.1-0.5)", min=0.0, max=1.0)
    drop_unedited: bool = param(True, "drop rows whose field got no edit (no word of it in the dictionary), as Stickland "
                                      "et al. keep only noised sentences; false keeps them unchanged")
    lang: str = param("en", "language of the dictionary rows to use and of the text: picks what a word is (the "
                            "segmenter for th, zh and ja; Moses-like units elsewhere) (set by the build)")

    version: ClassVar[int] = 2

    def check(self) -> None:
        if self.rate == 0 and self.drop_unedited:
            raise ConfigError(f"{self.noise_id}: rate=0 makes no edit, so drop_unedited=true would drop every row; "
                              "give rate>0 (or drop_unedited=false for an unchanged control set)")

    def describe(self) -> str:
        kept = "pairs flagged likely_typo" if self.runtime().typos_only else "all pairs of the dictionary"
        unedited = ("a row whose field got no edit (none of its words is in the dictionary) is dropped and counted "
                    "with that reason, as Stickland et al. keep only noised sentences" if self.drop_unedited
                    else "a text none of whose words is in the dictionary is kept unchanged")
        return (f"Natural noise from Wikipedia edit history, injected as Stickland et al. (2023) do ({kept}; "
                f"{self._dictionary_name()}): in each text, ceil({self.rate} x words) of the words that are in the "
                f"dictionary (all of them when fewer) are picked at random and replaced by a mined noisy form drawn by "
                f"its count; pairs that differ only in case keep the dictionary's case; {unedited} (see the achieved edit "
                f"rate). {wikiedit_word_note(self.lang)}")

    def build_warnings(self, stats: Mapping[str, Any]) -> list[str]:
        """Besides :meth:`_DictionaryNoise.build_warnings`: most of the source dropped because the
        dictionary did not cover it (the set then speaks for the covered part only)."""
        warnings = super().build_warnings(stats)
        dropped = sum(n for reason, n in (stats.get("dropped") or {}).items()
                      if reason in (NO_DICTIONARY_WORD, NO_EDITABLE_WORD))
        rows_in = int(stats.get("rows_in", 0))
        if rows_in and dropped > DROPPED_WARNING_SHARE * rows_in:
            warnings.append(f"{self.noise_id}: {dropped} of {rows_in} rows ({dropped / rows_in:.0%}) were dropped because "
                            f"the dictionary {self._dictionary_name()} has no editable word in them: the set covers only "
                            "the rest (drop_unedited=false keeps them unchanged).")
        return warnings

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        dictionary = self._dictionary
        results = []
        for index, text in enumerate(texts):
            spans = protected[index] if protected else ()
            rng = rngs[index]
            words = wikiedit_word_spans(text, self.lang)
            in_dictionary = 0
            candidates: list[tuple[int, int, str, dict[str, float]]] = []
            for start, end in words:
                word = text[start:end]
                key = _lookup(dictionary, word)
                if key is None:
                    continue
                in_dictionary += 1
                if not overlaps(start, end, spans):
                    forms = changing_forms(dictionary, word, key)
                    if forms:
                        candidates.append((start, end, word, forms))
            target = min(edit_count(self.rate, len(words)), len(candidates))
            rng.shuffle(candidates)
            edits = sorted(Edit(start, end, word, draw(forms, rng), "wikiedit")
                           for start, end, word, forms in candidates[:target])
            if not edits and self.drop_unedited:
                results.append(Noised(text, (), failure=NO_EDITABLE_WORD if in_dictionary else NO_DICTIONARY_WORD))
            else:
                results.append(noised_from_edits(text, edits))
        return results


def _word_list(path: Path) -> frozenset[str]:
    return frozenset(line.strip().lower() for _, line in text_lines(path, what="word list")
                     if line.strip() and not line.startswith("#"))


def function_words(lang: str) -> frozenset[str]:
    """The closed-class words of a language shipped in ``builders/wordlists/<lang>.txt``."""
    path = Path(str(resources.files("noisecraft") / "wordlists" / f"{lang}.txt"))
    if not path.is_file():
        raise ConfigError(f"no function-word list for {lang!r}: where=function/content needs "
                          f"builders/wordlists/{lang}.txt (or use where=listed, word_list=FILE)")
    return _word_list(path)


@dataclass(frozen=True)
class MisspellingNoise(_DictionaryNoise):
    """Replace words that have a natural misspelling, where the placement allows."""

    where: str = param("all", "which words may be misspelt: any, function words, content words (from the "
                              "language's shipped function-word list), or those of word_list", choices=PLACEMENTS)
    word_list: str | None = param(None, "with where=listed: a file of words, one a line", file="file")

    name: ClassVar[str] = "misspelling"
    version: ClassVar[int] = 1
    edit_kind: ClassVar[str] = "misspelling"
    dictionary_kinds: ClassVar[tuple[str, ...]] = ("misspellings", "wikiedits")
    citation: ClassVar[str] = NOISEQA_CITATION

    def check(self) -> None:
        if self.where == "listed" and not self.word_list:
            raise ConfigError(f"{self.noise_id}: where=listed needs word_list=FILE")

    def load(self) -> NaturalRuntime:
        loaded = super().load()
        if self.where == "listed":
            words: frozenset[str] | None = _word_list(Path(str(self.word_list)))
        elif self.where in ("function", "content"):
            words = function_words(self.lang)
        else:
            words = None
        return NaturalRuntime(loaded.dictionary, loaded.digest, eligible=words)

    def describe(self) -> str:
        place = {"all": "any word", "function": "function words", "content": "content words",
                 "listed": f"the words listed in `{self.word_list}`"}[self.where]
        return (f"Natural misspellings ({len(self._dictionary)} words in `{self.dictionary}`): each of {place} that has a "
                f"known misspelling is replaced, with probability {self.rate}, by one drawn by frequency.")

    def _placed(self, word: str) -> bool:
        eligible = self.runtime().eligible
        if eligible is None:
            return True
        inside = word.lower() in eligible
        return not inside if self.where == "content" else inside

    def _misspell(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        key = _lookup(self._dictionary, word)
        if key is None or not self._placed(word):
            return None
        return 0, len(word), match_case(word, self._dictionary.sample(key, rng))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return noise_each_word(batch.texts, batch.rngs, batch.protected, self.rate, self._misspell, "misspelling")


@dataclass(frozen=True)
class ReduplicationNoise(_DictionaryNoise):
    """Emphatic letter lengthening, from mined tweet variants or a fixed number of extra letters."""

    extra_letters: int = param(3, "letters added when the dictionary has no variant of the word", min=1, max=100)

    name: ClassVar[str] = "reduplication"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = LENGTHENING_CITATION
    edit_kind: ClassVar[str] = "reduplication"
    dictionary_kinds: ClassVar[tuple[str, ...]] = ("reduplication",)

    def load(self) -> NaturalRuntime:
        if not self.dictionary:
            return NaturalRuntime(None, "")  # no mined statistics: lengthen by extra_letters
        return super().load()

    def build_warnings(self, stats: Mapping[str, Any]) -> list[str]:
        """None: words without a mined variant are lengthened anyway, so the edits do not tell whether
        the dictionary matched."""
        return []

    def describe(self) -> str:
        source = (f"a variant mined from tweets (`{self.dictionary}`, {len(self._dictionary)} words) when the word has one, "
                  f"else " if self._dictionary is not None else "")
        return (f"Letter reduplication: each word, with probability {self.rate}, is lengthened: {source}one of its "
                f"vowels or its last letter repeated {self.extra_letters} more times.")

    def _lengthen(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        if len(word) < 2 or not word.isalpha():
            return None
        key = _lookup(self._dictionary, word) if self._dictionary is not None else None
        if key is not None:
            return 0, len(word), match_case(word, self._dictionary.sample(key, rng))
        positions = [i for i, ch in enumerate(word) if ch in VOWELS] + [len(word) - 1]
        i = positions[rng.below(len(positions))]
        return 0, len(word), word[: i + 1] + word[i] * self.extra_letters + word[i + 1 :]

    def apply(self, batch: NoiseInput) -> list[Noised]:
        return noise_each_word(batch.texts, batch.rngs, batch.protected, self.rate, self._lengthen, "reduplication")


#: Failure reason of ``reduplication@2`` with ``only_mined=true`` for a text that got no mined variant.
NO_MINED_VARIANT = "reduplication: no word of this text got a mined variant"


@dataclass(frozen=True)
class ReduplicationNoiseV2(ReduplicationNoise):
    """``reduplication@1`` plus ``only_mined``: lengthenings only as mined from tweets, as the CoLeS protocol keeps
    them (a word without a mined variant is left alone, and a row that got no edit is dropped with a reason)."""

    only_mined: bool = param(False, "only mined variants: words without one are left as they are and a row that got "
                                    "no edit is dropped and counted (the CoLeS protocol); needs dictionary=")

    version: ClassVar[int] = 2

    def check(self) -> None:
        if self.only_mined and not self.dictionary:
            raise ConfigError(f"{self.noise_id}: only_mined=true needs the mined variants: give dictionary=")

    def describe(self) -> str:
        if not self.only_mined:
            return super().describe()
        return (f"Letter reduplication as mined from tweets (`{self.dictionary}`, {len(self._dictionary)} words): each "
                f"word that has a mined variant gets one, drawn by its count, with probability {self.rate}; other words "
                "are left as they are, and a row that got no edit is dropped and counted (the CoLeS protocol).")

    def _lengthen(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        if self.only_mined and (not word.isalpha() or _lookup(self._dictionary, word) is None):
            return None
        return super()._lengthen(word, rng)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        results = super().apply(batch)
        if not self.only_mined:
            return results
        return [r if r.edits else Noised(r.text, (), failure=NO_MINED_VARIANT) for r in results]
