"""``grammar``: learner grammar errors injected at random (Yin et al., 2020, the probabilistic transformation).

Per text, ``ceil(rate x words)`` errors are attempted (the paper's budget is 15 % of the words). ``grammar@2``
counts words as the paper's code does, as the text's whitespace tokens (:func:`whitespace_tokens_modified`
measures the paper's "words modified" in the same unit, per row, in ``noise_tokens_modified``), and guards
Vform (see :mod:`noisecraft.grammar.operations`); ``grammar@1`` counted the tagger's tokens (punctuation
split off, so raw text such as MRPC got more errors than the paper's) and stays buildable as it was.
Each attempt draws an error type from the mined type distribution, then a free site of that type
(closed-class sites by how often their word goes wrong, others uniformly), then the error by its weight
(see :mod:`noisecraft.grammar.operations`). As in the authors' code, an attempt whose type has no free site
in the text makes no error, and a word is changed at most once; the card's achieved edit rate says how
many errors were made. ``grammar@2`` draws the site among all the sites of the type, and an attempt on a
word already changed makes no error.

Edits are recorded as character spans of the kind of their error type (``ArtOrDet``, ..., ``Worder``; a
swap is two edits, one per word, as it changes two words). Protected spans (answers, entity tokens with
``--protect-entities``) are never touched; with ``keep_tokens`` no word is inserted or deleted, so a
token-tag field keeps one tag per token (NER, as in the paper, with entities protected).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from typing import Any, ClassVar

from noisecraft.core.citations import YIN2020_CITATION
from noisecraft.core.edits import Edit, Noised, noised_from_edits
from noisecraft.core.params import param
from noisecraft.core.seeding import ExampleRng
from noisecraft.errors import ConfigError
from noisecraft.grammar.confusions import GrammarConfusions, load_confusions
from noisecraft.grammar.error_types import ERROR_TYPES
from noisecraft.grammar.operations import Option, Site, SiteFinder
from noisecraft.grammar.tagging import Tagger, load_tagger, load_wordnet, resolve_tagger_name
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.natural import edit_count

ALL_TYPES = "all"
_TOKEN = re.compile(r"\S+")


def parse_types(text: str) -> tuple[str, ...]:
    """``all`` or a comma-separated subset of the eight types, in the paper's order."""
    if text.strip() == ALL_TYPES:
        return ERROR_TYPES
    wanted = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in wanted if t not in ERROR_TYPES]
    if unknown or not wanted:
        raise ConfigError(f"types={text!r}: use 'all' or a comma-separated list of {', '.join(ERROR_TYPES)}")
    return tuple(t for t in ERROR_TYPES if t in wanted)


class GrammarRuntime:
    """The loaded confusions (at once), and the tagger and WordNet (on first use: they take seconds)."""

    def __init__(self, confusions: GrammarConfusions, tagger: str, nltk_data: str) -> None:
        self.confusions = confusions
        self._tagger_name = tagger
        self._nltk_data = nltk_data

    @cached_property
    def tagger(self) -> Tagger:
        return load_tagger(self._tagger_name, self._nltk_data)

    def wordnet(self) -> Any:
        return load_wordnet(self._nltk_data)


def whitespace_tokens_modified(text: str, edits: Sequence[Edit]) -> tuple[int, int]:
    """``(tokens an edit touches, tokens)`` over the whitespace tokens of ``text``: the paper's unit of "words
    modified" (an inserted word is attached to the word it precedes, so every edit touches a token; an empty
    edit touches the token it is at)."""
    spans = [match.span() for match in _TOKEN.finditer(text)]
    touched = {k for edit in edits for k, (start, end) in enumerate(spans)
               if (start < edit.end and edit.start < end) or (edit.start == edit.end and start <= edit.start <= end)}
    return len(touched), len(spans)


def sample_errors(sites: Mapping[str, Sequence[Site]], type_weights: Mapping[str, float], attempts: int,
                  rng: ExampleRng, among_all_sites: bool = False) -> list[Edit]:
    """Up to ``attempts`` errors, each: a type by its weight, a site of that type by weight, an option by weight.

    ``grammar@1`` draws the site among the *free* sites of the type (none free: the attempt makes no error);
    ``grammar@2`` (``among_all_sites``) draws it among all the type's sites, and an attempt that lands on a word
    already changed makes no error, so a sentence with few places for its budget gets fewer errors (measured
    against the paper: see ``benchmarks/grammar_fidelity.py``).
    """
    kinds = [kind for kind in ERROR_TYPES if type_weights.get(kind)]
    used: set[int] = set()
    edits: list[Edit] = []
    for _ in range(attempts):
        kind = kinds[rng.weighted([type_weights[k] for k in kinds])]
        candidates = list(sites.get(kind, ())) if among_all_sites else [s for s in sites.get(kind, ()) if not s.words & used]
        if not candidates:
            continue
        site = candidates[rng.weighted([s.weight for s in candidates])]
        if site.words & used:
            continue
        option: Option = site.options[rng.weighted([o.weight for o in site.options])]
        used |= site.words
        edits.extend(option.edits)
    return sorted(edits)


@dataclass(frozen=True)
class GrammarNoiseBase(NoiseModel):
    """What the grammar models share: the confusion table, the error types, the tagger and WordNet."""

    confusions: str = param("", "confusion table: a folder made by `noisecraft mine gec`, a Hub dataset repo id or a "
                                "parquet file", file="dictionary")
    confusions_config: str | None = param(None, "config of a mined folder or Hub repo", file="dictionary")
    types: str = param(ALL_TYPES, "error types to inject: all, or a comma-separated subset of "
                                  f"{', '.join(ERROR_TYPES)} (drawn by their mined weights)")
    tagger: str = param("auto", "POS tagger: auto (spaCy's en_core_web_sm when installed, else nltk), nltk (NLTK's "
                                "perceptron), spacy or spacy:<model package>")
    nltk_data: str = param("", "an NLTK data folder searched first for the perceptron tagger and WordNet (default: "
                               "NLTK's own search path)", file="dictionary")
    lang: str = param("en", "language of the text (the error types and vocabularies are English)", choices=("en",))

    citation: ClassVar[str] = YIN2020_CITATION
    #: Whether every mined edit of a type counts towards the type distribution (``type-only`` rows), or only the
    #: minimal ones (the versions made before those rows were mined: their outputs stay as they were).
    counts_every_edit: ClassVar[bool] = False

    def check(self) -> None:
        super().check()
        parse_types(self.types)
        object.__setattr__(self, "tagger", resolve_tagger_name(self.tagger))

    def load(self) -> GrammarRuntime:
        return GrammarRuntime(load_confusions(self.confusions, self.confusions_config, parse_types(self.types),
                                              self.counts_every_edit), self.tagger, self.nltk_data)

    @property
    def _runtime(self) -> GrammarRuntime:
        return self.runtime()

    def finder(self, keep_tokens: bool = False, precise_vform: bool = False) -> SiteFinder:
        """Where the error types apply (see :mod:`noisecraft.grammar.operations`)."""
        runtime = self._runtime
        return SiteFinder(runtime.confusions, parse_types(self.types), runtime.wordnet, keep_tokens, precise_vform)

    def seed_params(self) -> dict[str, object]:
        """Besides the parameters: the confusions' content and the tagger's weights decide the output."""
        return {**super().seed_params(), "confusions_digest": self._runtime.confusions.digest,
                **self._runtime.tagger.identity()}

    def params(self) -> dict[str, object]:
        return {**super().params(), "confusions_digest": self._runtime.confusions.digest}

    def provenance(self) -> dict[str, Any]:
        versions = {}
        for package in ("nltk", "lemminflect", "spacy"):
            try:
                versions[package] = metadata.version(package)
            except metadata.PackageNotFoundError:
                continue
        uses_wordnet = "Wchoice" in self._runtime.confusions.type_weights
        wordnet = {"wordnet": self._runtime.wordnet().get_version()} if uses_wordnet else {}
        return {**super().provenance(), **self._runtime.tagger.identity(), **wordnet, "libraries": versions}

    def _type_shares(self) -> str:
        weights = self._runtime.confusions.type_weights
        total = sum(weights.values())
        return ", ".join(f"{kind} {weight / total:.1%}" for kind, weight in weights.items())


@dataclass(frozen=True)
class GrammarErrors(GrammarNoiseBase):
    """Learner grammar errors (articles, prepositions, linking words, noun number, agreement, verb form,
    word choice, word order) at a share of the words, typed and weighted by a mined GEC confusion table."""

    rate: float = param(0.15, "share of the words given an error: ceil(rate x words) attempts per text (Yin et al.: 0.15)",
                        min=0.0, max=1.0)
    keep_tokens: bool = param(False, "only errors that keep the number of words (no inserted or deleted word): for "
                                     "token-tag fields such as NER tokens")

    name: ClassVar[str] = "grammar"
    version: ClassVar[int] = 1

    def describe(self) -> str:
        shares = self._type_shares()
        tokens = " Only errors that keep the number of words (no insertion or deletion)." if self.keep_tokens else ""
        return (f"Learner grammar errors as in Yin et al. (2020): per text, ceil({self.rate} x words) errors are "
                f"attempted; each draws an error type from the distribution mined from `{self.confusions}` ({shares}), a "
                f"place where that type applies (from the {self.tagger} tagger's part-of-speech tags, lemminflect and "
                f"WordNet) and an error there by the mined confusion weights; an attempt whose type has no free place "
                f"makes no error and a word is changed at most once (see the achieved edit rate).{tokens} Edit kinds "
                "name the error type.")

    def build_warnings(self, stats: Mapping[str, Any]) -> list[str]:
        if stats.get("rows") and not stats.get("edits"):
            return [f"{self.noise_id}: no error could be placed in any of the {stats['rows']} rows: check the tagger and "
                    "the types"]
        return []

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        runtime = self._runtime
        finder = self.finder(self.keep_tokens)
        tagged = runtime.tagger.tag(texts)
        results = []
        for index, (text, words) in enumerate(zip(texts, tagged)):
            sites = finder.sites(text, words, protected[index] if protected else ())
            edits = sample_errors(sites, runtime.confusions.type_weights, edit_count(self.rate, len(words)), rngs[index])
            results.append(noised_from_edits(text, edits))
        return results


@dataclass(frozen=True)
class GrammarErrorsV2(GrammarErrors):
    """``grammar@2``: the paper's budget unit (whitespace tokens), the type mix of every mined edit, guarded
    verb-form errors, a site drawn among all the type's sites (one on a word already changed makes no error), and
    per row the share of whitespace tokens modified (the paper's statistic)."""

    rate: float = param(0.15, "share of the words given an error: ceil(rate x whitespace tokens) attempts per text "
                              "(Yin et al.: 0.15)", min=0.0, max=1.0)

    version: ClassVar[int] = 2
    counts_every_edit: ClassVar[bool] = True
    row_columns: ClassVar[Mapping[str, str]] = {"tokens_modified": "float64"}

    def describe(self) -> str:
        return (super().describe().replace(f"ceil({self.rate} x words)", f"ceil({self.rate} x whitespace tokens)")
                + " A place is drawn among all the places of the type, and one whose word was already changed makes "
                "no error. Verb-form errors only on words that are the form their tag names of a known verb, never on "
                "a capitalised word inside the sentence, and never a change of agreement alone (that is SVA).")

    def summary(self, stats: Mapping[str, Any]) -> str:
        share = stats.get("columns", {}).get("tokens_modified", {})
        if not share.get("rows"):
            return ""
        return (f"Words modified, as Yin et al. (2020) count them (whitespace tokens an error touches over the "
                f"sentence's whitespace tokens, averaged over rows): {100 * share['sum'] / share['rows']:.2f} %.")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        texts, rngs, protected = batch.texts, batch.rngs, batch.protected
        runtime = self._runtime
        finder = self.finder(self.keep_tokens, precise_vform=True)
        results = []
        for index, (text, words) in enumerate(zip(texts, runtime.tagger.tag(texts))):
            sites = finder.sites(text, words, protected[index] if protected else ())
            edits = sample_errors(sites, runtime.confusions.type_weights, edit_count(self.rate, len(text.split())),
                                  rngs[index], among_all_sites=True)
            noised = noised_from_edits(text, edits)
            modified, tokens = whitespace_tokens_modified(text, noised.edits)
            results.append(noised._replace(columns={"tokens_modified": modified / tokens if tokens else 0.0}))
        return results
