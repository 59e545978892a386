"""``typing@1``: sample a typing model fitted from real clean/noisy text (``noisecraft mine typing``).

The model file (:mod:`noisecraft.noise_models.typing_format`) holds counts; this module turns them into the
process that produced them:

1. each text draws a rate factor ``m`` (one of the model's equal-probability Gamma quantiles, mean 1), so
   errors cluster in some texts as they do in the data;
2. each word (:func:`~noisecraft.core.text_units.word_spans` in the model's language, as the miner counted them)
   is hit with probability ``rate_scale * m * h(length) * f(place)``,
   ``h`` the model's hit rate for words of its length and ``f`` the ratio of the hit rate of its place (first,
   middle, last word) to the overall rate; a hit word gets one, two or three edits as the model counts them;
3. each edit's kind is drawn from the model's mix of word kinds, its place in the word from that kind's
   counts by fifth of the word, and a far substitution's key distance from the model's distances;
4. text events follow, each at its fitted rate times ``rate_scale``: the final ``?`` dropped, another
   punctuation mark dropped, a mark added after a word, surplus whitespace trimmed.

Inserted and substituted letters come from the model's layout, on the layer of the letter they stand
beside (case kept), so only typeable characters appear; a kind that cannot apply to a word (no neighbour
key, a one-letter word) leaves the draw unused. ``word-replacement`` edits are counted by the miner but
never sampled (they need the other word). Words touching a protected span, and marks inside one, are
left alone. Every edit is recorded as ``typing:<kind>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from noisecraft.core.citations import NOISEQA_CITATION
from noisecraft.core.edits import Edit, Noised, Span, noised_from_edits, overlaps
from noisecraft.core.params import file_digest, param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import word_spans
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseInput, NoiseModel
from noisecraft.noise_models.keyboard_layouts import KeyboardLayout, load_layout
from noisecraft.noise_models.typing_format import (
    DISTANCE_BINS,
    LENGTH_BUCKETS,
    POSITION_BINS,
    POSITIONS,
    UNSAMPLED_KINDS,
    WORD_KINDS,
    distance_bin,
    is_punctuation,
    key_positions,
    length_bucket,
    model_path,
    position_bin,
    read_model,
    word_place,
)

#: Pseudo-words pulling a sparse length bucket's hit rate towards the overall rate.
SMOOTHING_WORDS = 5.0
#: Kinds drawn per edit before a word's edit is given up (a kind may not apply to the word).
KIND_ATTEMPTS = 3

WordEdit = tuple[int, int, str]
#: Characters that may be punctuation (checked by category): the rest are word characters or spaces.
_NOT_WORD_OR_SPACE = re.compile(r"[^\w\s]")


def _letter_tables(layout: KeyboardLayout) -> dict[str, dict[str, tuple[str, ...]]]:
    """For each single-letter key text: the letters of the same layer by key distance bin (1, 2, 3+)."""
    layers = [[(key.row, key.x, getattr(key, layer)) for key in layout.keys
               if len(getattr(key, layer)) == 1 and getattr(key, layer).isalpha()] for layer in ("base", "shift")]
    tables: dict[str, dict[str, tuple[str, ...]]] = {}
    for letters in layers:
        positions = {char: (row, x) for row, x, char in letters}
        for _, _, char in letters:
            bins: dict[str, list[str]] = {b: [] for b in DISTANCE_BINS[:3]}
            for _, _, other in letters:
                if other != char:
                    bins[distance_bin(char, other, positions)].append(other)
            tables.setdefault(char, {b: tuple(v) for b, v in bins.items()})
    return tables


def _smoothed(table: dict[str, list[int]], overall: float) -> dict[str, float]:
    return {key: (hits + SMOOTHING_WORDS * overall) / (words + SMOOTHING_WORDS) for key, (words, hits) in table.items()}


@dataclass(frozen=True)
class TypingProcess:
    """A model file as the sampler reads it: rates, weights and the layout's letters."""

    hit_by_length: dict[str, float]
    place_factor: dict[str, float]
    multipliers: tuple[float, ...]
    edits_per_word: tuple[int, ...]
    kinds: tuple[str, ...]
    kind_weights: tuple[int, ...]
    position_weights: dict[str, tuple[int, ...]]
    far_bins: tuple[str, ...]
    far_weights: tuple[int, ...]
    events: dict[str, float]
    added_chars: tuple[str, ...]
    added_weights: tuple[int, ...]
    letters: dict[str, dict[str, tuple[str, ...]]]
    lang: str
    digest: str


def _hit_rates(model: dict[str, Any], word_rate: float | None) -> tuple[dict[str, float], dict[str, float]]:
    """Hit rate by length bucket and factor by place: the model's, or ``word_rate`` flat."""
    if word_rate is not None:
        return {b: word_rate for b in LENGTH_BUCKETS}, {p: 1.0 for p in POSITIONS}
    by_length = model["hit_by_length"]
    if by_length is None:
        raise ConfigError("this typing model was fitted from word lists alone and has no hit rates: give word_rate=")
    words, hits = sum(w for w, _ in by_length.values()), sum(h for _, h in by_length.values())
    overall = hits / words if words else 0.0
    places = _smoothed(model["hit_by_position"], overall)
    return _smoothed(by_length, overall), {p: (r / overall if overall else 1.0) for p, r in places.items()}


def load_process(model_value: str, word_rate: float | None) -> TypingProcess:
    """The sampler's view of the model file ``model_value`` names (see :func:`typing_format.model_path`)."""
    model = read_model(model_value)
    by_length, places = _hit_rates(model, word_rate)
    kinds = tuple(k for k in WORD_KINDS if k not in UNSAMPLED_KINDS and model["edit_mix"].get(k, 0) > 0)
    overall_positions = [sum(bins[i] for bins in model["position_in_word"].values()) for i in range(POSITION_BINS)]
    events = {kind: (happened / eligible if eligible else 0.0)
              for kind, (eligible, happened) in (model["text_events"] or {}).items()}
    layout = load_layout(model["layout"])
    typeable = key_positions(layout)
    added = {c: n for c, n in model["punctuation_added_chars"].items() if c in typeable}
    return TypingProcess(
        hit_by_length=by_length, place_factor=places,
        multipliers=(1.0,) if word_rate is not None else tuple(model["dispersion"]["rate_multipliers"]),
        edits_per_word=tuple(model["edits_per_hit_word"].values()),
        kinds=kinds, kind_weights=tuple(model["edit_mix"][k] for k in kinds),
        position_weights={k: tuple(model["position_in_word"].get(k) or overall_positions) for k in kinds},
        far_bins=("2", "3+"), far_weights=(model["key_distance"]["2"], model["key_distance"]["3+"]),
        events=events, added_chars=tuple(added), added_weights=tuple(added.values()), letters=_letter_tables(layout),
        lang=model["lang"], digest=file_digest(model_path(model_value)),
    )


def _index_in_bin(rng: ExampleRng, bin_: int, count: int, length: int) -> int:
    """A uniform index in ``range(count)`` whose fifth of a ``length``-character word is ``bin_`` (any when none)."""
    inside = [i for i in range(count) if position_bin(i, length) == bin_]
    return rng.choice(inside) if inside else rng.below(count)


def _far_letter(process: TypingProcess, char: str, rng: ExampleRng) -> str | None:
    """A letter at a key distance of 2 or more from ``char`` (its bin drawn by the model's counts)."""
    table = process.letters.get(char)
    if table is None:
        return None
    weights = process.far_weights if sum(process.far_weights) else (1, 1)
    chars = table[process.far_bins[rng.weighted(weights)]] or table["2"] + table["3+"]
    return rng.choice(chars) if chars else None


def _insertion(process: TypingProcess, kind: str, word: str, at: int, rng: ExampleRng) -> WordEdit | None:
    beside = word[at - 1] if at > 0 else word[0]
    if kind == "insertion-doubling":
        return (at, at, beside) if beside.isalnum() else None
    table = process.letters.get(beside)
    if table is None:
        return None
    if kind == "insertion-neighbour":
        return (at, at, rng.choice(table["1"])) if table["1"] else None
    far = _far_letter(process, beside, rng)
    return (at, at, far) if far else None


def _substitution(process: TypingProcess, kind: str, char: str, i: int, rng: ExampleRng) -> WordEdit | None:
    if kind == "case":
        swapped = char.swapcase()
        return (i, i + 1, swapped) if len(swapped) == 1 and swapped != char and swapped in process.letters else None
    if kind == "substitution-neighbour":
        near = process.letters.get(char, {}).get("1")
        return (i, i + 1, rng.choice(near)) if near else None
    far = _far_letter(process, char, rng)
    return (i, i + 1, far) if far else None


def word_edit(process: TypingProcess, kind: str, word: str, after: str, rng: ExampleRng) -> WordEdit | None:
    """One edit of ``kind`` in ``word`` (offsets in the word; ``after`` is the text following it), or ``None``."""
    n = len(word)
    bin_ = rng.weighted(process.position_weights[kind]) if sum(process.position_weights[kind]) else rng.below(5)
    if kind.startswith("insertion"):
        return _insertion(process, kind, word, _index_in_bin(rng, bin_, n + 1, n), rng)
    if kind == "whitespace-split":
        return (at, at, " ") if n > 1 and 0 < (at := _index_in_bin(rng, bin_, n, n)) else None
    if kind == "whitespace-merge":
        return (n, n + 1, "") if after[:1] == " " and after[1:2].strip() else None
    if n < 2 and kind in ("deletion", "transposition"):
        return None
    i = _index_in_bin(rng, bin_, n, n)
    if kind == "deletion":  # a punctuation mark inside a word (long-term) is the punctuation kinds' business
        return (i, i + 1, "") if word[i].isalnum() else None
    if kind == "transposition":
        i = min(i, n - 2)
        return (i, i + 2, word[i + 1] + word[i]) if word[i] != word[i + 1] else None
    return _substitution(process, kind, word[i], i, rng)


def _word_edits(process: TypingProcess, text: str, start: int, end: int, rng: ExampleRng) -> list[Edit]:
    """The edits of one hit word: how many drawn by the model, each kind by its mix, colliding ones dropped."""
    word, edits, used = text[start:end], [], set()
    count = 1 + rng.weighted(process.edits_per_word)
    for _ in range(count):
        for _ in range(KIND_ATTEMPTS):
            kind = process.kinds[rng.weighted(process.kind_weights)]
            found = word_edit(process, kind, word, text[end:end + 2], rng)
            if found is not None:
                break
        else:
            continue
        i, j, replacement = found
        cells = set(range(i, j)) | {i - 0.5}
        if cells & used:
            continue
        used |= cells
        edits.append(Edit(start + i, start + j, text[start + i:start + j], replacement, f"typing:{kind}"))
    return edits


def _trim(text: str) -> Edit | None:
    """The surplus whitespace a trim removes: leading, else trailing, else one space of a double space."""
    lead = len(text) - len(text.lstrip())
    if lead:
        return Edit(0, lead, text[:lead], "", "typing:whitespace-trim")
    trail = len(text) - len(text.rstrip())
    if trail:
        return Edit(len(text) - trail, len(text), text[len(text) - trail:], "", "typing:whitespace-trim")
    at = text.find("  ")
    return Edit(at, at + 1, " ", "", "typing:whitespace-trim") if at >= 0 else None


def text_events(process: TypingProcess, text: str, words: Sequence[Span], scale: float, spans: Sequence[Span],
                rng: ExampleRng) -> list[Edit]:
    """The final ``?`` dropped, punctuation dropped and added, surplus whitespace trimmed, each at its rate."""
    rate = {kind: min(1.0, scale * p) for kind, p in process.events.items()}
    edits = []
    stripped = text.rstrip()
    final = len(stripped) - 1 if stripped.endswith("?") else -1
    if final >= 0 and rate.get("final-question-dropped") and rng.random() < rate["final-question-dropped"] \
            and not overlaps(final, final + 1, spans):
        edits.append(Edit(final, final + 1, "?", "", "typing:final-question-dropped"))
    if rate.get("punctuation-dropped"):
        for match in _NOT_WORD_OR_SPACE.finditer(text):  # a draw for each punctuation mark, as the miner counts them
            i, char = match.start(), match.group()
            if is_punctuation(char) and i != final and rng.random() < rate["punctuation-dropped"] \
                    and not overlaps(i, i + 1, spans):
                edits.append(Edit(i, i + 1, char, "", "typing:punctuation-dropped"))
    if rate.get("punctuation-added") and process.added_chars:
        for _, end in words:
            if rng.random() < rate["punctuation-added"] and not overlaps(end, end, spans):
                char = process.added_chars[rng.weighted(process.added_weights)]
                edits.append(Edit(end, end, "", char, "typing:punctuation-added"))
    if rate.get("whitespace-trim") and (text != text.strip() or "  " in text) and rng.random() < rate["whitespace-trim"]:
        trim = _trim(text)
        if trim is not None and not overlaps(trim.start, trim.end, spans):
            edits.append(trim)
    return edits


def sample_text(process: TypingProcess, text: str, rng: ExampleRng, scale: float, spans: Sequence[Span]) -> Noised:
    """One text through the fitted process (see the module docstring for the order of the draws)."""
    words = word_spans(text, process.lang)
    multipliers = process.multipliers
    factor = scale * (multipliers[rng.below(len(multipliers))] if len(multipliers) > 1 else multipliers[0])
    edits: list[Edit] = []
    for k, (start, end) in enumerate(words):
        p = factor * process.hit_by_length[length_bucket(end - start)] * process.place_factor[word_place(k, len(words))]
        if rng.random() < p and not overlaps(start, end + 1, spans):
            edits += _word_edits(process, text, start, end, rng)
    edits += text_events(process, text, words, scale, spans, rng)
    kept: list[Edit] = []
    cursor = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start >= cursor:  # edits that collide with an earlier one are dropped
            kept.append(edit)
            cursor = edit.end
    return noised_from_edits(text, kept)


@dataclass(frozen=True)
class TypingNoise(NoiseModel):
    """Typing errors sampled from a model fitted on real clean/noisy text (`noisecraft mine typing`): which words
    are hit by length and place, clustered per text, with the fitted mix of edit kinds."""

    model: str = param("", "a folder written by `noisecraft mine typing` (or its typing-model.json); default: the "
                           "built-in model fitted from learner writing's spelling edits (not typing)", file="model")
    rate_scale: float = param(1.0, "multiplies every fitted rate (word hits and text events)", min=0.0)
    word_rate: float | None = param(None, "flat per-word hit probability, the same in every text, instead of the "
                                          "fitted hit rates and their per-text dispersion (needed by a model fitted "
                                          "from word lists alone)", min=0.0, max=1.0)

    name: ClassVar[str] = "typing"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = NOISEQA_CITATION

    def load(self) -> TypingProcess:
        return load_process(self.model, self.word_rate)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "model_digest": self.runtime().digest}

    def seed_params(self) -> dict[str, Any]:
        return {"model_digest": self.runtime().digest, "rate_scale": self.rate_scale, "word_rate": self.word_rate}

    def describe(self) -> str:
        model = read_model(self.model)
        counts = model["counts"]
        mix = model["edit_mix"]
        total = sum(mix.values()) or 1
        top = ", ".join(f"{kind} {100 * n / total:.0f} %" for kind, n in sorted(mix.items(), key=lambda kv: -kv[1])[:5])
        source = f"`{model_path(self.model).name}`" if self.model else "the built-in learner-writing model"
        hits = (f"{counts['words_hit']} of {counts['words']} words hit in {counts['texts']} texts"
                if counts["words"] else "no hit rates (word lists only)")
        rate = f"a flat per-word hit probability of {self.word_rate}" if self.word_rate is not None else \
            "the fitted hit rate of the word's length and place in the text, scaled by a per-text factor " \
            f"(dispersion 1/k = {model['dispersion']['inverse_k']})"
        return (f"Typing errors sampled from the fitted typing model {source} (`{model['layout']}` layout; {hits}; "
                f"{counts['edits']} edits): each word is hit with {rate}, times rate_scale={self.rate_scale}; a hit "
                f"word gets one to three edits drawn from the fitted mix ({top}), placed in the word as the data "
                "placed them, with letters typed on the model's layout; the final `?`, other punctuation and surplus "
                "whitespace are dropped, and punctuation added, at their fitted rates. Whole-word replacements are "
                "counted by the model but not sampled.")

    def apply(self, batch: NoiseInput) -> list[Noised]:
        process: TypingProcess = self.runtime()
        protected = batch.protected
        return [sample_text(process, text, rng, self.rate_scale, protected[i] if protected else ())
                for i, (text, rng) in enumerate(zip(batch.texts, batch.rngs))]
