"""Words segmented the way a model sees them, with the tokenizer's word-boundary marks stripped.

A word is given to the tokenizer as it appears inside a sentence, after a space (``" happy"``), so
byte-level BPE gives its word-initial ``Ġ`` pieces and SentencePiece its ``▁`` ones; WordPiece drops
the space. Each vocabulary piece is then compared as a string without its mark: the WordPiece
continuation prefix (``##``), a leading byte-level space (``Ġ``) or a SentencePiece space (``▁``), so
``hap`` at the start of a word and ``##hap`` inside one are the same subword. A piece that is only a
mark (a lone ``▁``) carries no letters and is left out. Non-ASCII letters stay in the byte-level
alphabet (``Ã©``), which compares consistently between a canonical and a noisy word.

The tokenizer is loaded like every model of the project (:mod:`noisecraft.runtime.loading`): a Hub
id with a revision (the resolved commit recorded) or a saved folder (its content digest recorded).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.extras import require

#: How many words go through the tokenizer's batched (Rust) encoder at once.
ENCODE_BATCH = 4096


def _types(node: Any) -> Iterator[str]:
    """Every ``"type"`` in a tokenizer.json component (sequences nest them)."""
    if isinstance(node, dict):
        if isinstance(node.get("type"), str):
            yield node["type"]
        for value in node.values():
            yield from _types(value)
    elif isinstance(node, list):
        for value in node:
            yield from _types(value)


def boundary_marks(tokenizer: Any) -> tuple[str, ...]:
    """The marks a fast tokenizer writes on its pieces: ``##`` (WordPiece), ``Ġ`` (byte level), ``▁`` (Metaspace)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise ConfigError(f"{type(tokenizer).__name__} is not a fast (tokenizers-backed) tokenizer: the probe needs one")
    spec = json.loads(backend.to_str())
    kinds = {kind for part in ("pre_tokenizer", "decoder", "model") for kind in _types(spec.get(part))}
    marks = []
    if spec["model"].get("type") == "WordPiece":
        marks.append(spec["model"].get("continuing_subword_prefix") or "##")
    if "ByteLevel" in kinds:
        marks.append("Ġ")
    if "Metaspace" in kinds:
        marks.append("▁")
    return tuple(marks)


@dataclass
class Segmenter:
    """A tokenizer and what identifies it (``name``, resolved ``revision``), segmenting words to subword strings.

    Words go straight through a private copy of the tokenizer's Rust backend (``encode_batch``, no padding,
    no truncation, no special tokens): the transformers wrapper's per-encoding conversion would cost more
    than the tokenisation itself, and the shared tokenizer's settings are left alone."""

    tokenizer: Any
    name: str
    revision: str
    marks: tuple[str, ...] = ()
    _backend: Any = field(default=None, repr=False)
    _pieces: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        from tokenizers import Tokenizer

        self.marks = boundary_marks(self.tokenizer)
        self._backend = Tokenizer.from_str(self.tokenizer.backend_tokenizer.to_str())
        self._backend.no_padding()
        self._backend.no_truncation()

    def piece(self, token: str) -> str:
        """Vocabulary piece ``token`` without its boundary mark (cached)."""
        text = self._pieces.get(token)
        if text is None:
            text = token
            for mark in self.marks:
                if text.startswith(mark):
                    text = text[len(mark):]
                    break
            self._pieces[token] = text
        return text

    def segment(self, words: Sequence[str]) -> list[list[str]]:
        """The subwords of each word, in order, as the model sees the word after a space."""
        out: list[list[str]] = []
        for start in range(0, len(words), ENCODE_BATCH):
            batch = [f" {w}" for w in words[start : start + ENCODE_BATCH]]
            encoded = self._backend.encode_batch(batch, add_special_tokens=False)
            out.extend([p for p in map(self.piece, encoding.tokens) if p] for encoding in encoded)
        for word, pieces in zip(words, out):
            if not pieces:
                raise ConfigError(f"{self.name} segments {word!r} into no piece with letters")
        return out


def load_segmenter(name: str, revision: str | None = None) -> Segmenter:
    """The fast tokenizer of a Hub model id (at ``revision``) or a saved folder."""
    require("transformers", "eval")
    from transformers import AutoTokenizer

    from noisecraft.runtime.loading import load_pretrained, resolve_model

    ref = resolve_model(name, revision)
    return Segmenter(load_pretrained(AutoTokenizer, ref), ref.name, ref.revision)
