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

# --- Whisper (speech noise): random tiny models in openai-whisper's and transformers' formats ----------------------

#: The 99 languages of the multilingual Whisper vocabulary (51,865 tokens), in openai-whisper's order.
def _whisper_languages() -> list[str]:
    from whisper.tokenizer import LANGUAGES

    return list(LANGUAGES)[:99]


@builder("whisper-openai")
def _whisper_openai(folder: Path) -> None:
    """``model.pt`` in openai-whisper's checkpoint format (dims + state dict), loaded by ``whisper.load_model``;
    a 64-token text context, so that its random output stops after 32 tokens (whisper decodes up to half of it).
    Weights are drawn wide (std 0.5): with whisper's small default init every clip gives the same text, and the
    tests need transcripts that depend on the audio."""
    import torch
    from whisper.model import ModelDimensions, Whisper

    dims = ModelDimensions(n_mels=80, n_audio_ctx=1500, n_audio_state=64, n_audio_head=2, n_audio_layer=1,
                           n_vocab=51865, n_text_ctx=64, n_text_state=64, n_text_head=2, n_text_layer=1)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = Whisper(dims)
        with torch.no_grad():
            for weight in model.parameters():
                if weight.dim() > 1:
                    weight.normal_(0, 0.5)
            # whisper leaves it torch.empty(): uninitialised memory would make outputs vary between runs
            model.decoder.positional_embedding.normal_(0, 0.02)
    torch.save({"dims": dims.__dict__, "model_state_dict": model.state_dict()}, folder / "model.pt")


@builder("whisper-hf")
def _whisper_hf(folder: Path) -> None:
    """A ``save_pretrained`` folder: the real multilingual Whisper BPE (rebuilt from openai-whisper's bundled
    tiktoken file, ids equal to openai-whisper's) and a random tiny ``WhisperForConditionalGeneration``."""
    from importlib.resources import files

    import torch
    from transformers import (
        GenerationConfig,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperProcessor,
        WhisperTokenizer,
    )
    from transformers.convert_slow_tokenizer import TikTokenConverter

    vocab, merges = TikTokenConverter().extract_vocab_merges_from_model(str(files("whisper") / "assets" /
                                                                            "multilingual.tiktoken"))
    tokenizer = WhisperTokenizer(vocab=vocab, merges=merges)
    languages = _whisper_languages()
    specials = ["<|startoftranscript|>", *[f"<|{code}|>" for code in languages], "<|translate|>", "<|transcribe|>",
                "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>",
                *[f"<|{i * 0.02:.2f}|>" for i in range(1501)]]
    tokenizer.add_tokens(specials, special_tokens=True)
    ids = tokenizer.convert_tokens_to_ids  # a short text context: its random output stops after 32 tokens
    config = WhisperConfig(vocab_size=51865, num_mel_bins=80, d_model=64, encoder_layers=1, decoder_layers=1,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128,
                           max_source_positions=1500, max_target_positions=64, pad_token_id=50257, bos_token_id=50257,
                           eos_token_id=50257, decoder_start_token_id=50258, init_std=0.5)  # wide: see above
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = WhisperForConditionalGeneration(config)
    model.generation_config = GenerationConfig(
        decoder_start_token_id=50258, eos_token_id=50257, pad_token_id=50257, bos_token_id=50257, max_length=32,
        is_multilingual=True, lang_to_id={f"<|{code}|>": ids(f"<|{code}|>") for code in languages},
        task_to_id={"transcribe": ids("<|transcribe|>"), "translate": ids("<|translate|>")},
        no_timestamps_token_id=ids("<|notimestamps|>"), prev_sot_token_id=ids("<|startofprev|>"),
        begin_suppress_tokens=[220, 50257], suppress_tokens=[], max_initial_timestamp_index=50)
    WhisperProcessor(WhisperFeatureExtractor(feature_size=80), tokenizer).save_pretrained(folder)
    model.save_pretrained(folder)


# --- a named-entity tagger (replace-entity) -------------------------------------------------------------------------

NER_LABELS = ("O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC")


@builder("ner-tagger")
def _ner_tagger(folder: Path) -> None:
    """A random tiny BERT token classifier with WikiANN's labels and a WordPiece vocabulary of the corpus words
    (a fast tokenizer: the token-classification pipeline needs character offsets)."""
    import torch
    from transformers import BertConfig, BertForTokenClassification, BertTokenizerFast

    words = sorted({w.strip("?,.").lower() for s in CORPUS_EN for w in s.split()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "?", ",", ".", *words]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    config = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128, initializer_range=0.5,
                        id2label=dict(enumerate(NER_LABELS)), label2id={label: i for i, label in enumerate(NER_LABELS)})
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = BertForTokenClassification(config)
    model.save_pretrained(folder)

