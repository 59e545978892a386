"""Where each learner error type applies in a tagged sentence, and the errors it can make there.

A :class:`Site` is one place where one type applies (a noun for Nn, an article for ArtOrDet, a slot
before a noun phrase for an inserted article, an adverb beside an adjective for Worder); its
:class:`Option` s are the errors it can make, each a list of character-span edits against the original
text, with a weight. The probabilistic model (``grammar``) samples sites and options; the attack
(``grammar-attack``) searches over all of them.

Where a type applies (Penn Treebank tags):

* ArtOrDet, Prep, Trans: the words of the confusion table's rows (``a``/``an``/``the``; prepositions tagged
  IN/TO/RP; linking words tagged CC, RB, IN, WDT or WRB), replaced or deleted as its weights say; a
  word is inserted (the ``∅`` row) before a noun or adjective that starts a noun phrase without a
  determiner (ArtOrDet), before a noun phrase that follows a verb other than "be" (Prep), at the start
  of a sentence that does not start with a linking word (Trans). A site's weight is its row's total, so
  the likelier a word is to go wrong, the likelier it is picked (as in the authors' code).
* Nn: nouns (NN <-> NNS); SVA: present-tense verbs (VBZ <-> VBP); Vform: verbs, another of their
  present, past, progressive or perfect forms (all via lemminflect, for words its lexicon knows). With
  ``precise_vform`` (``grammar@2``) Vform also needs the word to be the form its tag names of a verb
  lemminflect knows (``record`` tagged VBD is not ``recorded``), never takes a capitalised word inside the
  sentence (``Bill`` tagged as a verb), and leaves agreement-only changes (``plays`` <-> ``play``,
  ``was`` <-> ``were``) to SVA;
  Wchoice: nouns, verbs, adjectives and adverbs, one of their first 10 single-word WordNet synonyms
  (uniform), inflected like the word; Worder: an adverb swapped with an adjacent adjective, participle
  or modal.

An inserted word is attached to the word it precedes (one edit over that word), a deleted word takes
its following space with it, and a sentence-initial capital moves with the first word; so every edit
stays inside or between words and a token field either keeps one token per token or is dropped with
a reason. ``keep_tokens`` leaves out insertions and deletions (for token-tag fields). Edits that touch
a protected span are never offered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

from noisecraft.core.edits import Edit, Span, overlaps
from noisecraft.core.text_units import match_case
from noisecraft.grammar.confusions import ConfusionRow, GrammarConfusions
from noisecraft.grammar.error_types import EMPTY, REFERENCE_SETS
from noisecraft.grammar.tagging import Word

NOUN, PLURAL = "NN", "NNS"
PROPER = frozenset({"NNP", "NNPS"})
VERBS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
ADJECTIVES = frozenset({"JJ", "JJR", "JJS"})
ADVERBS = frozenset({"RB", "RBR", "RBS"})
#: Words before which a noun phrase already has its determiner or is already running.
DETERMINED = frozenset({"DT", "PDT", "PRP$", "WP$", "POS", "CD", "WDT"}) | ADJECTIVES | {NOUN, PLURAL} | PROPER
NOUN_PHRASE_START = frozenset({"DT", "PRP$", "PRP", "CD"}) | ADJECTIVES | {NOUN, PLURAL} | PROPER
TAGS_OF = {"Prep": frozenset({"IN", "TO", "RP"}), "Trans": frozenset({"CC", "RB", "IN", "WDT", "WRB"})}
#: Verb forms Vform chooses among: present (base and 3rd singular), past, progressive, perfect.
VERB_FORMS = ("VB", "VBZ", "VBD", "VBG", "VBN")
WORDNET_POS = {"N": "n", "V": "v", "J": "a", "R": "r"}
#: Forms of "be": a copula's complement takes no preposition ("is happy", not "is about happy").
BE = frozenset({"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m"})
#: Verbs whose WordNet "synonyms" are not word choices (``is`` -> ``exist``, ``equal``).
AUXILIARIES = frozenset({"be", "have", "do"})
SYNONYMS = 10
#: Tags whose words are their own lemma (a synonym is used as WordNet lists it).
BASE_FORM_TAGS = frozenset({NOUN, "VB", "VBP", "JJ", "RB"})
#: Adverbs that do not move (negation).
FIXED_ADVERBS = frozenset({"not", "n't", "never"})
WORDER_NEIGHBOURS = ADJECTIVES | {"VBN", "VBG", "MD"}


class Option(NamedTuple):
    """One error a site can make: its edits against the original text, and its weight."""

    edits: tuple[Edit, ...]
    weight: float


@dataclass(frozen=True)
class Site:
    """A place where ``error_type`` applies: the words it uses, its weight, and the errors it can make."""

    error_type: str
    words: frozenset[int]
    weight: float
    options: tuple[Option, ...]


# --- word forms (cached: the same words recur across a dataset) ---------------------------------


@cache
def _lemma(word: str, upos: str) -> str:
    from lemminflect import getLemma

    found = getLemma(word, upos=upos)
    return found[0] if found else word


@cache
def known(word: str, upos: str) -> bool:
    """Whether lemminflect's lexicon knows ``word`` as ``upos`` (its rules would also inflect any unknown
    word, e.g. a name mistagged as a verb: ``Amrozi`` -> ``Amrozied``)."""
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(word, upos=upos))


@cache
def _inflect(lemma: str, tag: str) -> str | None:
    from lemminflect import getInflection

    found = getInflection(lemma, tag=tag)
    return found[0] if found else None


def noun_number_forms(word: str, tag: str) -> tuple[str, ...]:
    """The other number of a noun: plural of a singular (NN), singular of a plural (NNS)."""
    lower = word.lower()
    form = _inflect(lower, PLURAL) if tag == NOUN else _lemma(lower, "NOUN")
    return (form,) if form and form != lower else ()


def agreement_forms(word: str, tag: str) -> tuple[str, ...]:
    """A present-tense verb with the other agreement: 3rd person singular (VBZ) <-> not (VBP)."""
    lower = word.lower()
    from lemminflect import getInflection

    forms = getInflection(_lemma(lower, "VERB"), tag="VBP" if tag == "VBZ" else "VBZ")
    return tuple(dict.fromkeys(f for f in forms if f != lower))


def verb_forms(word: str) -> tuple[str, ...]:
    """The verb's other forms among present, past, progressive and perfect."""
    lower = word.lower()
    lemma = _lemma(lower, "VERB")
    return tuple(dict.fromkeys(f for f in (_inflect(lemma, t) for t in VERB_FORMS) if f and f != lower))


#: Tags whose forms differ from each other by agreement only: a change among them is SVA, not Vform.
AGREEMENT_CLASSES = (frozenset({"VB", "VBP", "VBZ"}), frozenset({"VBD"}))


@cache
def _inflections(lemma: str) -> dict[str, tuple[str, ...]]:
    from lemminflect import getAllInflections

    return dict(getAllInflections(lemma, upos="VERB"))


def precise_verb_forms(word: str, tag: str) -> tuple[str, ...]:
    """Like :func:`verb_forms`, for a word that is the ``tag`` form of a verb lemminflect knows (else none), and
    without the forms that differ from it by agreement only (those are SVA errors)."""
    lower = word.lower()
    lemma = _lemma(lower, "VERB")
    inflections = _inflections(lemma)
    if lower not in inflections.get(tag, ()) and not (tag == "VB" and lower == lemma):
        return ()
    same_class = next((c for c in AGREEMENT_CLASSES if tag in c and tag != "VB"), frozenset())
    agreement = {form for t in same_class for form in inflections.get(t, ())}
    return tuple(f for f in verb_forms(word) if f not in agreement)


def synonyms(wordnet: Any, word: str, tag: str) -> tuple[str, ...]:
    """Up to :data:`SYNONYMS` single-word WordNet synonyms of ``word`` (in WordNet's order), inflected like it."""
    return _synonyms(wordnet, word.lower(), tag)


@cache
def _synonyms(wordnet: Any, lower: str, tag: str) -> tuple[str, ...]:
    pos = WORDNET_POS[tag[0]]
    lemma = wordnet.morphy(lower, pos) or lower
    if pos == "v" and lemma in AUXILIARIES:
        return ()
    found: list[str] = []
    for synset in wordnet.synsets(lemma, pos):
        for name in synset.lemma_names():
            if name.isalpha() and name.islower() and name != lemma and name not in found:
                found.append(name)
    forms = []
    for name in found:
        form = name if tag in BASE_FORM_TAGS else _inflect(name, tag)
        if form and form != lower and form not in forms:
            forms.append(form)
        if len(forms) == SYNONYMS:
            break
    return tuple(forms)


# --- edits ------------------------------------------------------------------------------------


def _capitalised_first(words: Sequence[Word], i: int) -> bool:
    """Whether word ``i`` is a sentence-initial capital that belongs to the sentence, not to the word."""
    word = words[i]
    return i == 0 and word.text[:1].isupper() and word.tag not in PROPER and word.text != "I" and not word.text.isupper()


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class SentenceEdits:
    """Builds the edits of one tagged sentence."""

    text: str
    words: Sequence[Word]

    def substitute(self, i: int, new: str, kind: str) -> tuple[Edit, ...]:
        word = self.words[i]
        replacement = match_case(word.text, new)
        return () if replacement == word.text else (Edit(word.start, word.end, word.text, replacement, kind),)

    def insert(self, i: int, new: str, kind: str) -> tuple[Edit, ...]:
        """``new`` inserted before word ``i`` (one edit over word ``i``)."""
        word = self.words[i]
        if _capitalised_first(self.words, i):
            replacement = f"{_upper_first(new)} {_lower_first(word.text)}"
        else:
            replacement = f"{_upper_first(new) if i == 0 and word.text[:1].isupper() else new} {word.text}"
        return (Edit(word.start, word.end, word.text, replacement, kind),)

    def delete(self, i: int, kind: str) -> tuple[tuple[Edit, ...], frozenset[int]]:
        """Word ``i`` deleted with the space after it (before it, for the last word); the words used."""
        words = self.words
        word = words[i]
        if i + 1 < len(words):
            following = words[i + 1]
            if _capitalised_first(words, i) and following.tag not in PROPER and following.text != "I":
                span = self.text[word.start : following.end]
                return (Edit(word.start, following.end, span, _upper_first(following.text), kind),), frozenset({i, i + 1})
            return (Edit(word.start, following.start, self.text[word.start : following.start], "", kind),), frozenset({i})
        before = words[i - 1].end
        return (Edit(before, word.end, self.text[before : word.end], "", kind),), frozenset({i})

    def swap(self, i: int, kind: str) -> tuple[Edit, ...]:
        """Words ``i`` and ``i + 1`` exchanged (one edit each, so each stays one token)."""
        first, second = self.words[i], self.words[i + 1]
        new_first, new_second = second.text, first.text
        if _capitalised_first(self.words, i) and second.tag not in PROPER:
            new_first, new_second = _upper_first(new_first), _lower_first(new_second)
        return (Edit(first.start, first.end, first.text, new_first, kind),
                Edit(second.start, second.end, second.text, new_second, kind))


# --- sites --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteFinder:
    """Finds the sites of the wanted types in tagged sentences."""

    confusions: GrammarConfusions
    types: tuple[str, ...]
    wordnet: Callable[[], Any]
    keep_tokens: bool = False
    #: ``grammar@2``'s Vform guards (see the module docstring); off for ``grammar@1`` and ``grammar-attack@1``.
    precise_vform: bool = False

    def sites(self, text: str, words: Sequence[Word], protected: Sequence[Span] = ()) -> dict[str, list[Site]]:
        """Every site of every wanted type, in word order; options that touch ``protected`` are left out."""
        build = SentenceEdits(text, words)
        found: dict[str, list[Site]] = {}
        for kind in self.types:
            if kind not in self.confusions.type_weights:
                continue
            sites = []
            for site in FINDERS[kind](self, build, kind):
                options = tuple(o for o in site.options if o.edits and not any(overlaps(e.start, e.end, protected)
                                                                              for e in o.edits))
                if options:
                    sites.append(Site(site.error_type, site.words, site.weight, options))
            if sites:
                found[kind] = sites
        return found

    # closed-class types: the confusion rows decide
    def _closed(self, build: SentenceEdits, kind: str) -> list[Site]:
        words = build.words
        sites = []
        for i, word in enumerate(words):
            row = self.confusions.row(kind, word.text.lower())
            if row is not None and (kind == "ArtOrDet" or word.tag in TAGS_OF[kind]):
                sites.append(self._replace_or_delete(build, i, row, kind))
        empty = self.confusions.row(kind, EMPTY)
        if empty is not None and not self.keep_tokens:
            for i in _insertion_slots(kind, words):
                options = tuple(Option(build.insert(i, form, kind), weight)
                                for form, weight in zip(empty.forms, empty.weights) if form != EMPTY)
                sites.append(Site(kind, frozenset({i}), empty.total, options))
        return sorted(sites, key=lambda s: min(s.words))

    def _replace_or_delete(self, build: SentenceEdits, i: int, row: ConfusionRow, kind: str) -> Site:
        options, used = [], {i}
        for form, weight in zip(row.forms, row.weights):
            if form != EMPTY:
                options.append(Option(build.substitute(i, form, kind), weight))
            elif not self.keep_tokens and len(build.words) > 1:
                edits, words = build.delete(i, kind)
                used |= words
                options.append(Option(edits, weight))
        return Site(kind, frozenset(used), row.total, tuple(options))

    def _open(self, build: SentenceEdits, kind: str) -> list[Site]:
        sites = []
        for i, word in enumerate(build.words):
            if not word.text.isalpha() or len(word.text) < 2:
                continue
            if self.precise_vform and kind == "Vform" and word.text[:1].isupper() and not _capitalised_first(build.words, i):
                continue  # a capitalised word inside the sentence is a name (``Bill``), whatever its tag
            forms = self._forms(kind, word)
            if forms:
                sites.append(Site(kind, frozenset({i}), 1.0,
                                  tuple(Option(build.substitute(i, form, kind), 1.0) for form in forms)))
        return sites

    def _forms(self, kind: str, word: Word) -> tuple[str, ...]:
        tag = word.tag
        lower = word.text.lower()
        if kind == "Nn":
            return noun_number_forms(word.text, tag) if tag in (NOUN, PLURAL) and known(lower, "NOUN") else ()
        if kind == "SVA":
            return agreement_forms(word.text, tag) if tag in ("VBZ", "VBP") and known(lower, "VERB") else ()
        if kind == "Vform":
            if tag not in VERBS or not known(lower, "VERB"):
                return ()
            return precise_verb_forms(word.text, tag) if self.precise_vform else verb_forms(word.text)
        if tag in (NOUN, PLURAL) or tag in VERBS or tag in ADJECTIVES or tag in ADVERBS:
            return synonyms(self.wordnet(), word.text, tag)
        return ()

    def _word_order(self, build: SentenceEdits, kind: str) -> list[Site]:
        words = build.words
        sites = []
        for i, word in enumerate(words):
            if word.tag not in ADVERBS or word.text.lower() in FIXED_ADVERBS or not word.text.isalpha():
                continue
            for j in (i - 1, i + 1):
                if 0 <= j < len(words) and words[j].tag in WORDER_NEIGHBOURS:
                    first = min(i, j)
                    sites.append(Site(kind, frozenset({i, j}), 1.0, (Option(build.swap(first, kind), 1.0),)))
        return sites


def _insertion_slots(kind: str, words: Sequence[Word]) -> list[int]:
    """Words before which ``kind`` may insert a word (see the module docstring)."""
    if kind == "Trans":
        first = words[0].text if words else ""
        return [0] if first[:1].isalpha() and first.lower() not in REFERENCE_SETS["Trans"] else []
    slots = []
    for i, word in enumerate(words):
        before = words[i - 1].tag if i else ""
        determined = before in DETERMINED or (i > 0 and words[i - 1].text.lower() in REFERENCE_SETS["ArtOrDet"])
        if kind == "ArtOrDet" and word.tag in ({NOUN, PLURAL} | ADJECTIVES) and not determined:
            slots.append(i)
        elif kind == "Prep" and word.tag in NOUN_PHRASE_START and before in VERBS and words[i - 1].text.lower() not in BE:
            slots.append(i)
    return slots


FINDERS: Mapping[str, Callable[[SiteFinder, SentenceEdits, str], list[Site]]] = {
    "ArtOrDet": SiteFinder._closed, "Prep": SiteFinder._closed, "Trans": SiteFinder._closed,
    "Nn": SiteFinder._open, "SVA": SiteFinder._open, "Vform": SiteFinder._open, "Wchoice": SiteFinder._open,
    "Worder": SiteFinder._word_order,
}
