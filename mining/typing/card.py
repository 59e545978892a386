"""The typing model's card (``README.md`` beside ``typing-model.json``) and the summary ``mine typing`` prints."""

from __future__ import annotations

from typing import Any

from noisecraft.core.stats import format_table
from noisecraft.noise_models.typing_format import POSITION_BINS, UNSAMPLED_KINDS

_FIFTHS = ", ".join(f"{i}/{POSITION_BINS}" for i in range(1, POSITION_BINS + 1))


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def mix_table(model: dict[str, Any], markdown: bool = False) -> str:
    """Edits by kind: count and share (kinds never seen left out)."""
    mix = model["edit_mix"]
    total = sum(mix.values())
    rows = [(kind + (" (not sampled)" if kind in UNSAMPLED_KINDS else ""), n, _share(n, total))
            for kind, n in mix.items() if n]
    return format_table(("edit kind", "edits", "share"), rows, markdown)


def hit_table(model: dict[str, Any], markdown: bool = False) -> str:
    """P(word hit) by word length and by the word's place in its text, with the words behind each figure."""
    if model["hit_by_length"] is None:
        return "No hit rates: fitted from word lists only (give `word_rate=` to typing@1)."
    rows = [(f"length {bucket}", words, hits, _share(hits, words))
            for bucket, (words, hits) in model["hit_by_length"].items() if words]
    rows += [(f"{place} word", words, hits, _share(hits, words))
             for place, (words, hits) in model["hit_by_position"].items() if words]
    return format_table(("words", "seen", "hit", "P(hit)"), rows, markdown)


def detail_tables(model: dict[str, Any]) -> str:
    """Markdown: text events, key distances, position in the word, edits per hit word."""
    parts = []
    if model["text_events"] is not None:
        rows = [(kind, eligible, happened, _share(happened, eligible))
                for kind, (eligible, happened) in model["text_events"].items()]
        parts.append("Text events (eligible: texts ending in `?`, punctuation marks, word gaps, texts with surplus "
                     "whitespace):\n\n" + format_table(("event", "eligible", "happened", "rate"), rows, True))
    distance = model["key_distance"]
    parts.append("Key distance of substitutions (1: neighbouring keys):\n\n" + format_table(
        ("distance", "substitutions"), list(distance.items()), True))
    rows = [(kind, *bins) for kind, bins in model["position_in_word"].items()]
    parts.append(f"Position in the word (fifths of the word: {_FIFTHS}):\n\n"
                 + format_table(("edit kind", *(f"{i + 1}/{POSITION_BINS}" for i in range(POSITION_BINS))), rows, True))
    parts.append("Edits per hit word:\n\n" + format_table(("edits", "words"), list(model["edits_per_hit_word"].items()),
                                                          True))
    return "\n\n".join(parts)


def summary(model: dict[str, Any]) -> str:
    """What ``mine typing`` prints: the headline counts, the edit mix and the hit rates."""
    counts = model["counts"]
    dispersion = model["dispersion"]
    head = (f"{counts['texts']} texts ({counts['texts_changed']} changed), {counts['words']} words "
            f"({counts['words_hit']} hit), {counts['list_pairs']} listed misspellings, {counts['edits']} edits; "
            f"skipped: {', '.join(f'{r}: {n}' for r, n in counts['skipped'].items()) or 'none'}; "
            f"per-text dispersion 1/k = {dispersion['inverse_k']}")
    return "\n\n".join((head, mix_table(model), hit_table(model)))


def card(model: dict[str, Any]) -> str:
    """The model folder's README.md."""
    inputs = "\n".join(f"- `{i['file']}` ({i['kind']}), sha256 `{i['sha256']}`" for i in model["provenance"]["inputs"])
    counts = model["counts"]
    skipped = ", ".join(f"{reason}: {n}" for reason, n in counts["skipped"].items()) or "none"
    return f"""# Typing model ({model['lang']}, `{model['layout']}` layout)

{model['description']}

Fitted by noisecraft {model['provenance']['toolkit_version']} (`noisecraft mine typing`), file format
{model['format_version']}. Use it with `--noise 'typing(model=THIS_FOLDER)'` (optionally `rate_scale=`).

## Data

{inputs}

{counts['texts']} aligned texts ({counts['texts_changed']} changed), {counts['words']} words ({counts['words_hit']} hit),
{counts['list_pairs']} listed misspellings, {counts['edits']} edits. Pairs skipped as not the same text (normalised
similarity below {model['provenance']['min_similarity']}) or unreadable: {skipped}.

## Edit kinds

{mix_table(model, True)}

## Which words are hit

{hit_table(model, True)}

Per-text dispersion: 1/k = {model['dispersion']['inverse_k']} (negative binomial over {model['dispersion']['texts']}
texts: each text's word hit rates are scaled by a factor with mean 1 and variance 1/k).

## Details

{detail_tables(model)}
"""
