"""Keyboard typos: a character becomes the character of a neighbouring key.

Two protocols from the literature, selected with ``mode``:

* ``noiseqa`` (NoiseQA, Ravichander et al. 2021): each word, with probability ``rate``, gets one
  lower-case letter replaced by the letter key immediately left or right of it on the same row.
* ``coles``: each word longer than 4 characters, with probability ``rate``, gets one interior
  character (first and last kept) replaced by any key within distance 1, on the same layer as
  the original character, so ``W`` gives an upper-case neighbour.

Neighbours come from key coordinates (:mod:`noisecraft.noise_models.keyboard_layouts`); characters that
are not on the layout but decompose to a letter that is (Vietnamese ``ế`` on QWERTY) keep their
diacritics. Words touching a protected span are left alone.

``keyboard@2`` (:class:`KeyboardTyposV2`) follows the papers more closely and changes outputs, so it is a
new version beside ``keyboard@1``:

* NoiseQA mode works on whitespace tokens, as NoiseQA does (``best-known`` is one token, so it gets at
  most one typo), and never changes a token with fewer than two letters (NoiseQA never edits ``a``);
  CoLeS mode works on words that keep contractions and compounds whole (``doesn't``).
* Only what the layout types is changed, through its own dead keys and input method (the ``[typing]``
  table of the layout file): on Spanish, ``ó`` is ``´`` + ``o``, so a typo gives ``í`` (the dead key
  composes it) but never ``ṕ``; on German ``ä`` is a key of its own; on QWERTY, ``é`` is not typed at
  all and is left alone. No letter is ever followed by a stray combining mark (``s̈``).
* Thai, Chinese and Japanese are segmented into words (:mod:`noisecraft.core.text_units`); ``lang`` is a
  parameter of the spec, since it picks the layout, the input method and the segmenter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from noisecraft.core.citations import NOISEQA_CITATION
from noisecraft.core.edits import Noised
from noisecraft.core.params import file_digest, param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import segmentation_note
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.keyboard_layouts import (
    NeighbourTable,
    TypingTable,
    builtin_layouts,
    layout_for_language,
    load_layout,
)
from noisecraft.noise_models.per_word import noise_each_word

MODES = ("noiseqa", "coles")
RATE_HELP = "per-word probability of a typo"


#: A unit of a word that may get a typo: its offsets in the word and what it may become.
TypoSite = tuple[int, int, tuple[str, ...]]


class TypoSites:
    """A memo of each word's typo sites (words repeat), and the typo of a word: one site drawn, then one of what it
    may become. The runtime of both keyboard versions; they differ only in where a word's sites are."""

    def __init__(self) -> None:
        self.sites: dict[str, tuple[TypoSite, ...]] = {}

    def find_sites(self, word: str) -> tuple[TypoSite, ...]:
        """The typo sites of ``word`` (not memoised: see :meth:`sites_of`)."""
        raise NotImplementedError

    def sites_of(self, word: str) -> tuple[TypoSite, ...]:
        """The typo sites of ``word``, memoised."""
        found = self.sites.get(word)
        if found is None:
            found = self.find_sites(word)
            if len(self.sites) >= 200_000:  # bound memory on huge corpora
                self.sites.clear()
            self.sites[word] = found
        return found

    def typo(self, word: str, rng: ExampleRng) -> tuple[int, int, str] | None:
        """The per-word loop's edit (:func:`~noisecraft.noise_models.per_word.noise_each_word`): a site of ``word``
        drawn uniformly, then its replacement; ``None`` (no draw) for a word without sites."""
        sites = self.sites.get(word)
        if sites is None:
            sites = self.sites_of(word)
        if not sites:
            return None
        random = rng.random  # rng.below(len(sites)), then rng.choice(candidates), written out (the hot path)
        i, j, candidates = sites[int(random() * len(sites))]
        return i, j, candidates[int(random() * len(candidates))]


class KeyboardRuntime(TypoSites):
    """keyboard@1's runtime: the neighbour table of a layout; a site is one character that has neighbours."""

    def __init__(self, table: NeighbourTable, coles: bool) -> None:
        super().__init__()
        self.table = table
        self.coles = coles

    def find_sites(self, word: str) -> tuple[TypoSite, ...]:
        """NoiseQA: every character with a neighbour; CoLeS: those strictly inside a word longer than 4."""
        table = self.table
        if self.coles:
            positions = range(1, len(word) - 1) if len(word) > 4 else range(0)
        else:
            positions = range(len(word))
        return tuple((i, i + 1, table[word[i]]) for i in positions if table[word[i]])


@dataclass(frozen=True)
class KeyboardTypos(NoiseModel):
    """Per-word keyboard typos on a layout: NoiseQA row neighbours or CoLeS distance-1 keys."""

    rate: float = param(0.25, RATE_HELP + " (NoiseQA: 0.25)", min=0.0, max=1.0)
    layout: str | None = param(None, "built-in layout name (noisecraft layouts) or a .toml layout file; "
                                     "default: the native layout of lang")
    mode: str = param("noiseqa", "noiseqa: a lower-case letter becomes the key just left/right on its row; coles: an "
                                 "interior character of a word longer than 4 becomes any key within distance 1",
                      choices=MODES)
    lang: str = param("en", "language whose native layout is used when no layout is given (set by the build)",
                      init_only=True)

    name: ClassVar[str] = "keyboard"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = NOISEQA_CITATION

    def check(self) -> None:
        self.resolved_layout()

    def uses_lang(self) -> bool:
        return self.layout is None

    def resolved_layout(self) -> str:
        """The layout name or file actually typed on."""
        return self.layout or layout_for_language(self.lang).name

    def params(self) -> dict[str, object]:
        return {"rate": self.rate, "layout": self.resolved_layout(), "mode": self.mode}

    def seed_params(self) -> dict[str, object]:
        layout = self.resolved_layout()
        if layout in builtin_layouts():
            return self.params()
        return {"rate": self.rate, "layout_digest": file_digest(layout), "mode": self.mode}

    def load(self) -> KeyboardRuntime:
        layout = load_layout(self.resolved_layout())
        table = layout.row_neighbours() if self.mode == "noiseqa" else layout.distance_neighbours()
        return KeyboardRuntime(table, self.mode == "coles")

    def describe(self) -> str:
        if self.mode == "noiseqa":
            how = "one lower-case letter becomes the letter key just left or right of it on the same row (NoiseQA)"
        else:
            how = ("one interior character of a word longer than 4 characters becomes any key within "
                   "distance 1 on the same layer, first and last characters kept (CoLeS protocol)")
        return (f"Keyboard typos on the `{self.resolved_layout()}` layout: each word, with probability {self.rate}, "
                f"gets a typo: {how}. Case is preserved and diacritics of decomposable characters are kept.")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        runtime: KeyboardRuntime = self.runtime()
        return noise_each_word(batch.texts, batch.rngs, batch.protected, self.rate, runtime.typo, "keyboard")


# --- keyboard@2 ---------------------------------------------------------------------------------------------------


def _letters(token: str) -> int:
    """Letters in ``token`` (category L: combining vowel signs, digits and punctuation do not count)."""
    return sum(1 for ch in token if ch.isalpha())


class TypingRuntime(TypoSites):
    """keyboard@2's runtime: the layout's :class:`TypingTable`; a site is a typed unit the layout can change."""

    def __init__(self, table: TypingTable, coles: bool) -> None:
        super().__init__()
        self.table = table
        self.coles = coles

    def find_sites(self, word: str) -> tuple[TypoSite, ...]:
        """NoiseQA: every typed unit of a token with two letters or more; CoLeS: every typed unit strictly inside a
        word longer than 4 characters."""
        candidates = self.table.candidates
        if self.coles:
            n = len(word)
            units = [(i, j) for i, j in self.table.units(word) if i > 0 and j < n] if n > 4 else []
        else:
            units = self.table.units(word) if _letters(word) >= 2 else []
        return tuple((i, j, c) for i, j in units if (c := candidates(word[i:j])))


@dataclass(frozen=True)
class KeyboardTyposV2(NoiseModel):
    """Keyboard typos that type only what the layout types (dead keys and input methods modelled, no stray
    combining marks), on NoiseQA's whitespace tokens (one-letter tokens kept) or CoLeS' whole words."""

    rate: float = param(0.25, RATE_HELP + " (NoiseQA: 0.25)", min=0.0, max=1.0)
    layout: str | None = param(None, "built-in layout name (noisecraft layouts) or a .toml layout file; "
                                     "default: the native layout of lang")
    mode: str = param("noiseqa", "noiseqa: in a whitespace token of two letters or more, a lower-case letter becomes the "
                                 "key just left/right on its row; coles: an interior character of a word longer than 4 "
                                 "becomes any key within distance 1", choices=MODES)
    lang: str = param("en", "language of the text: picks the native layout when none is given, the input method "
                            "(Vietnamese Telex) and the word segmenter (th, zh, ja); set by the build")

    name: ClassVar[str] = "keyboard"
    version: ClassVar[int] = 2
    citation: ClassVar[str] = NOISEQA_CITATION

    def check(self) -> None:
        self.resolved_layout()

    def resolved_layout(self) -> str:
        """The layout name or file actually typed on."""
        return self.layout or layout_for_language(self.lang).name

    def params(self) -> dict[str, object]:
        return {"rate": self.rate, "layout": self.resolved_layout(), "mode": self.mode, "lang": self.lang}

    def seed_params(self) -> dict[str, object]:
        layout = self.resolved_layout()
        if layout in builtin_layouts():
            return self.params()
        return {"rate": self.rate, "layout_digest": file_digest(layout), "mode": self.mode, "lang": self.lang}

    def load(self) -> TypingRuntime:
        layout = load_layout(self.resolved_layout())
        return TypingRuntime(layout.typing_table(self.mode, self.lang), self.mode == "coles")

    def describe(self) -> str:
        if self.mode == "noiseqa":
            how = ("each whitespace-separated token (`best-known,` is one token) with at least two letters gets, with "
                   f"probability {self.rate}, one typo: a lower-case letter (in scripts without case, a character of "
                   "the unshifted layer) becomes the key just left or right of it on the same row (NoiseQA); tokens "
                   "with fewer than two letters (`a`, `I`) are never changed")
        else:
            how = ("each word longer than 4 characters (contractions and hyphenated compounds such as `doesn't` and "
                   f"`long-term` are one word) gets, with probability {self.rate}, one typo: an interior character "
                   "becomes any key within distance 1 on the same layer, first and last characters kept (CoLeS "
                   "protocol)")
        layout = load_layout(self.resolved_layout())
        note = segmentation_note(self.lang)
        return (f"Keyboard typos (keyboard@2) on the `{self.resolved_layout()}` layout: {how}. Case is preserved. "
                f"Only what this layout types is changed: {layout.typing_description(self.lang)}"
                + (f" {note}" if note else ""))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        runtime: TypingRuntime = self.runtime()
        unit = "whitespace" if self.mode == "noiseqa" else "word"
        return noise_each_word(batch.texts, batch.rngs, batch.protected, self.rate, runtime.typo, "keyboard",
                               lang=self.lang, unit=unit)
