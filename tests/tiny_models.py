"""Tiny randomly initialised models, saved with ``save_pretrained`` (or the engine's own format) to a
folder, so that tests load them through the real ``from_pretrained(path)`` code path.

Each builder is registered under a name; :func:`tiny_model` builds it once per test session into a
shared folder. Golden files name a model as ``"tiny:<name>"`` in their parameters. Builders seed
torch inside ``torch.random.fork_rng()``, so the process's global generator is left as it was, and
the weights are the same on every run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

BUILDERS: dict[str, Callable[[Path], None]] = {}
_ROOT = Path(tempfile.mkdtemp(prefix="noisecraft-tiny-models-"))


def builder(name: str) -> Callable[[Callable[[Path], None]], Callable[[Path], None]]:
    """Register ``fn(folder)`` as the builder of tiny model ``name``."""

    def register(fn: Callable[[Path], None]) -> Callable[[Path], None]:
        BUILDERS[name] = fn
        return fn

    return register


def tiny_model(name: str) -> Path:
    """The folder of tiny model ``name``, built on first use in this session."""
    folder = _ROOT / name
    if not folder.exists():
        partial = _ROOT / f"{name}.partial"
        partial.mkdir(parents=True, exist_ok=True)
        BUILDERS[name](partial)
        partial.rename(folder)
    return folder


def resolve_tiny(value: object) -> object:
    """``"tiny:<name>"`` -> the model's folder (as a string); anything else unchanged."""
    if isinstance(value, str) and value.startswith("tiny:"):
        return str(tiny_model(value.removeprefix("tiny:")))
    return value


# --- sentences to train tokenizers on ------------------------------------------------------------

CORPUS_EN = [
    "When did Beyonce start becoming popular?", "What is the capital city of France?",
    "Who wrote the novel Pride and Prejudice?", "How many people live in the city?",
    "Which river flows through the capital?", "What year did the war end?",
    "Where was the first university founded?", "Why did the company change its name?",
]
CORPUS_DE = [
    "Wann wurde Beyonce bekannt?", "Was ist die Hauptstadt von Frankreich?",
    "Wer schrieb den Roman Stolz und Vorurteil?", "Wie viele Menschen leben in der Stadt?",
    "Welcher Fluss fließt durch die Hauptstadt?", "In welchem Jahr endete der Krieg?",
    "Wo wurde die erste Universität gegründet?", "Warum hat die Firma ihren Namen geändert?",
]


# --- Marian (opus-mt layout) -----------------------------------------------------------------------

def _sentences(lang: str) -> list[str]:
    """A few hundred varied sentences (templates over the corpus words) to train a vocabulary on."""
    base = CORPUS_EN if lang == "en" else CORPUS_DE
    words = sorted({w.strip("?,.") for s in base for w in s.split()})
    return base + [" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(3 + i % 6)) + "?" for i in range(300)]


def _train_spm(sentences: list[str], path: Path, vocab_size: int = 200) -> list[str]:
    import io

    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=buffer, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, hard_vocab_limit=False, bos_id=-1,
                                   eos_id=-1, unk_id=0, minloglevel=2, num_threads=1)
    path.write_bytes(buffer.getvalue())
    processor = spm.SentencePieceProcessor(model_proto=buffer.getvalue())
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def _marian(folder: Path, source: str, target: str) -> None:
    import json

    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    pieces = _train_spm(_sentences(source), folder / "source.spm") + _train_spm(_sentences(target), folder / "target.spm")
    vocab = {"</s>": 0, "<unk>": 1}
    for piece in pieces:
        vocab.setdefault(piece, len(vocab))
    vocab["<pad>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    MarianTokenizer(source_spm=str(folder / "source.spm"), target_spm=str(folder / "target.spm"),
                    vocab=str(folder / "vocab.json"), source_lang=source, target_lang=target).save_pretrained(folder)
    size = len(vocab)
    config = MarianConfig(vocab_size=size, d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                          decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=256,
                          pad_token_id=size - 1, decoder_start_token_id=size - 1, eos_token_id=0, forced_eos_token_id=0,
                          init_std=2.0)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = MarianMTModel(config)
    model.save_pretrained(folder)


@builder("marian-en-de")
def _marian_en_de(folder: Path) -> None:
    _marian(folder, "en", "de")


@builder("marian-de-en")
def _marian_de_en(folder: Path) -> None:
    _marian(folder, "de", "en")
