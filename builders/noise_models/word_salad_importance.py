"""Importance-guided word salad: ``drop``, ``repeat``, ``replace`` and ``copyone`` (Gupta, Kvernadze & Srikumar,
AAAI 2021, "BERT & Family Eat Word Salad"), the gradient-based family beside the lexical one in
:mod:`.destructive`.

**Importance.** A fine-tuned sequence classifier (``model``: a Hub id with ``revision``, or a folder saved with
``save_pretrained``; resolved, cached, seeded and recorded by :class:`~noisecraft.noise_models.model_base.ModelNoise`,
as the grammar attack's victim) reads each row's input (the text, or the whole pair of a pair task in the task's
order) and the runtime's
:class:`~noisecraft.runtime.heads.Importance` head gives every sub-token ``t_i · ∇_{t_i} L``, ``L`` the
cross-entropy of the model's *predicted* label (one forward and one backward per length-bucketed batch). A
**word** is a token of :func:`noisecraft.core.text_units.token_spans` with at least one letter or digit (``doesn't``
and ``long-term`` stay whole; punctuation is never touched); its score is the **sum** of the scores of the
sub-tokens that start inside it, and its importance is the magnitude of that sum (a word that strongly supports
or strongly opposes the prediction matters; one whose gradient is near zero does not). Words past the model's
``max_length`` get no gradient and count as importance 0. Importance is rounded to 6 decimals (the runtime's
rounding policy), so the order does not turn on the last bits of a batch's arithmetic. **Ties** are broken by
position: of two words of equal importance the earlier one ranks as the more important (one total order).

**The transformations** (``k = floor(r · n + 1/2)`` of the ``n`` words of the text):

* ``drop``: the ``k`` least important words are deleted with the space next to them (at most ``n - 1``, so a
  text is never emptied); the rest stay in order, byte for byte.
* ``repeat``: each of the ``k`` least important words (at most ``n - 1``) is replaced by one of the ``n - k``
  more important words, drawn uniformly from the row's own generator.
* ``replace``: each of the ``k`` least important words is replaced by a random whole word of the model's
  vocabulary (alphabetic, no special token, no continuation piece such as ``##ing``), drawn from the row's
  own generator.
* ``copyone`` (pair tasks): the second text is replaced by the single most important word of the first
  (importance over the pair as the model reads it). It takes no ``r`` (``copyone@1`` declared one it never read:
  a value other than its default is refused there).

**Version 2** (``drop@2``, ``repeat@2``, ``replace@2``, ``copyone@2``). Pre-tokenised text (SST-2, as the paper
uses it) writes a clitic as a token of its own (``it 's``, ``we 're``), which :func:`token_spans` splits into an
apostrophe (punctuation, never touched) and a word ``s``: version 1 dropped or replaced the ``s`` and left the
apostrophe glued to the next word (``it 'charming``). Version 2 reads an apostrophe and the clitic after it
(``'s``, ``'re``, ``'ve``, ``'ll``, ``'d``, ``'m``, ``'em``; ``n't`` is one word already) as one word (:func:`salad_tokens`),
its importance the sum over both. ``replace@2`` also draws only vocabulary words written in the scripts of the
text's own letters (:func:`~noisecraft.core.text_units.letter_scripts`): from a multilingual vocabulary, version 1
put a single Arabic or CJK character into English text in about 2.6 % of its draws. Version 1 stays buildable,
its output unchanged.

**Which text, per task.** As for the lexical family, one text per example is destroyed and the other (on a pair
task) kept: ``drop``, ``repeat`` and ``replace`` touch the sources' default field (SST-2 ``sentence``, MRPC
``sentence1``, QQP ``question1``, MNLI ``hypothesis``, QNLI ``sentence``), what ``scripts/recipes/word-salad-glue.toml``
builds; ``copyone``, like ``copysort``, always rewrites the second text (MRPC ``sentence2``, QQP ``question2``, MNLI
``hypothesis``, from the premise's most important word). The models noise whatever field a build names; on a field of
a pair task the importance is still computed over the whole pair, as the classifier reads it.

**The classifier's task is checked.** Importance is only meaningful from a classifier fine-tuned on the task being
noised: an MNLI model's gradient on SST-2 sentences ranks words by nothing SST-2 asks. When the source has a class
label, its class names are matched to the classifier's labels by the label check of
:class:`~noisecraft.noise_models.model_base.ModelNoise` (the grammar attack's too), before any forward pass: the
same names (case and separators ignored), or generic ``LABEL_0..N-1`` with as many labels as the dataset (accepted
positionally: then only the count was checked, which the card says). Anything else is refused with one line
naming the model, its labels and the dataset's. The mapping never changes the output (importance follows the
predicted label, whichever it is); the card and the provenance record it. A source without a class label (a
SQuAD field, ``nc.perturb`` without ``labels=``) is not checked, and the card says the classifier's task is
unchecked.

Scores are computed in :meth:`prepare` over the split's distinct inputs (inner batches depend on the inputs,
never on ``--num-proc``) and cached on disk by the head's fingerprint, which does not hold ``r`` or the seed:
another ``r`` or seed asks the model nothing. Edits are recorded (``drop`` deletions, ``repeat``/``replace``
word substitutions; ``copyone`` one whole-field replacement). Labels are the source's: they no longer describe
the text, which is the point of the test (a model should lose confidence).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, ClassVar

from noisecraft.core.citations import WORD_SALAD_CITATION
from noisecraft.core.edits import Edit, Noised, noised_from_edits, whole_field
from noisecraft.core.params import ParamSpec, param
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import letter_scripts, token_spans
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import Capabilities, NoiseInput
from noisecraft.noise_models.destructive import LANG_HELP
from noisecraft.noise_models.model_base import ModelNoise, ModelRuntime
from noisecraft.runtime.postprocess import DECIMALS

#: An input the classifier reads: ``(text,)`` or ``(first, second)``.
ClassifierInput = tuple[str, ...]
Span = tuple[int, int]


@cache
def _byte_level_alphabet() -> dict[str, int]:
    """Byte-level BPE's character for each byte, inverted (see :func:`_byte_level_text`)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {chr(b): b for b in printable} | {chr(256 + n): b for n, b in enumerate(others)}


def _byte_level_text(piece: str) -> str | None:
    """The text a byte-level BPE piece stands for, or ``None`` when its bytes are not whole UTF-8 characters.

    Byte-level BPE (GPT-2, RoBERTa) writes each byte as one printable character: the printable Latin-1 bytes
    (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) as themselves, the 68 others as ``chr(256 + n)`` in byte order. So
    ``cafÃ©`` is ``café``, and a piece holding half of a character (``Ã``) is no word."""
    to_byte = _byte_level_alphabet()
    try:
        return bytes(to_byte[ch] for ch in piece).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return None


def vocabulary_words(vocab: Sequence[str], specials: Sequence[str]) -> tuple[str, ...]:
    """The whole, alphabetic words of a sub-word vocabulary, sorted (the draw must not depend on dict order).

    Three schemes are told apart by their markers: byte-level BPE (RoBERTa, GPT-2) marks a word's first piece
    with ``Ġ`` (its pieces are read back to text, :func:`_byte_level_text`), SentencePiece with ``▁``, WordPiece
    (BERT) marks continuations with ``##``. Special tokens and continuation pieces are left out."""
    special = set(specials)
    words: Iterable[str | None]
    if any(piece.startswith("Ġ") for piece in vocab):
        words = (_byte_level_text(piece[1:]) for piece in vocab if piece.startswith("Ġ") and piece not in special)
    elif any(piece.startswith("▁") for piece in vocab):
        words = (piece[1:] for piece in vocab if piece.startswith("▁") and piece not in special)
    else:
        words = (piece for piece in vocab if not piece.startswith("##") and piece not in special)
    return tuple(sorted({word for word in words if word and word.isalpha()}))


class ImportanceRuntime(ModelRuntime):
    """The classifier's bound head (:class:`~noisecraft.noise_models.model_base.ModelRuntime`) and the model's
    vocabulary words for ``replace``."""

    def __init__(self, head_loader: Callable[[], Any], noise_id: str, model: str) -> None:
        super().__init__(head_loader)
        self._noise_id, self._model = noise_id, model
        self._in_scripts: dict[frozenset[str], tuple[str, ...]] = {}

    @property
    def computed(self) -> int:
        """Inputs that went through the model in this process (neither memory nor disk cache had them)."""
        return int(self.head.computed)

    def check(self) -> None:
        """Refuse, before any row, a model whose importance cannot be computed: no input embeddings to take the
        gradient at, or a tokenizer without character offsets (words could not be found in the text)."""
        model = self.head.head.model(self.head.task)
        try:
            embeddings = model.get_input_embeddings()
        except (NotImplementedError, AttributeError):
            embeddings = None
        if embeddings is None:
            raise ConfigError(f"{self._noise_id} model={self._model}: {type(model).__name__} has no input embeddings "
                              "(get_input_embeddings), so t · grad_t L cannot be computed; use a transformer classifier")
        if not getattr(self.head.head.tokenizer, "is_fast", False):
            raise ConfigError(f"{self._noise_id} model={self._model}: its tokenizer has no fast (Rust) version, so "
                              "sub-tokens cannot be mapped to words by character offsets")

    @cached_property
    def vocabulary(self) -> tuple[str, ...]:
        tokenizer = self.head.head.tokenizer
        words = vocabulary_words(list(tokenizer.get_vocab()), list(tokenizer.all_special_tokens))
        if not words:
            raise ConfigError(f"{self._noise_id} model={self._model}: its vocabulary has no whole alphabetic word")
        return words

    def vocabulary_in(self, scripts: frozenset[str]) -> tuple[str, ...]:
        """The vocabulary words whose letters are all of ``scripts`` (:func:`letter_scripts`), so that English text
        draws no Arabic or CJK character from a multilingual vocabulary; the whole vocabulary when none is (a text
        without letters, or a script the model does not know)."""
        if scripts not in self._in_scripts:
            words = tuple(word for word in self.vocabulary if letter_scripts(word) <= scripts)
            self._in_scripts[scripts] = words or self.vocabulary
        return self._in_scripts[scripts]

    def importance(self, inputs: Sequence[ClassifierInput], progress: bool = False) -> list[dict[str, Any]]:
        """The head's importance result of every input, in input order; each distinct input computed at most once
        (a progress bar over the model's batches when ``progress``); the model is checked before it is asked."""
        if self.head.missing(inputs):
            self.check()
        return self.head.run(inputs, progress)


def is_word(token: str) -> bool:
    """Whether a token of :func:`token_spans` is a word: it has at least one letter or digit."""
    return any(ch.isalnum() for ch in token)


#: English clitics that pre-tokenised text (SST-2, the Penn Treebank) writes as tokens of their own: ``it 's``,
#: ``we 're``, ``they 've``, ``we 'll``, ``i 'd``, ``i 'm``, ``shoot 'em up`` (``n't`` is one token of :func:`token_spans`
#: already).
CLITICS = frozenset({"s", "re", "ve", "ll", "d", "m", "em"})
APOSTROPHES = frozenset("'\u2019\u02bc")
#: What a version-2 card adds to its sentence on words.
CLITIC_NOTE = " (a clitic of pre-tokenised text, `'s`, `'re`, `n't`, is one word with its apostrophe)"


def salad_tokens(text: str, lang: str) -> list[Span]:
    """The tokens of :func:`token_spans`, an apostrophe joined to the clitic that follows it (``'s``, ``'re``,
    ``'ve``, ``'ll``, ``'d``, ``'m``, ``'em``): one word, as the paper's pre-tokenised text has it, so that dropping or
    replacing it never leaves its apostrophe glued to the next word (``it 'charming``)."""
    tokens: list[Span] = []
    for start, end in token_spans(text, lang):
        if tokens and text[slice(*tokens[-1])] in APOSTROPHES and tokens[-1][1] == start \
                and text[start:end].lower() in CLITICS:
            tokens[-1] = (tokens[-1][0], end)
        else:
            tokens.append((start, end))
    return tokens


def word_importance(item: dict[str, Any], words: Sequence[Span], sequence: int) -> list[float]:
    """Importance of each word of one text of an importance result: the magnitude of the sum of the scores of the
    sub-tokens of text ``sequence`` that start inside the word (0 for a word the length limit cut off), rounded to
    :data:`~noisecraft.runtime.postprocess.DECIMALS` decimals: the order must not turn on the last bits of a batch's
    arithmetic (padding moves scores by ~1e-7), and what rounding makes equal is ordered by position."""
    starts = [a for a, _ in words]
    sums = [0.0] * len(words)
    for seq, offset, score in zip(item["sequence_ids"], item["offsets"], item["scores"]):
        if seq != sequence or offset is None or offset[1] <= offset[0]:
            continue
        index = bisect_right(starts, offset[0]) - 1
        if index >= 0 and offset[0] < words[index][1]:
            sums[index] += score
    return [round(abs(s), DECIMALS) for s in sums]


def ranking(importance: Sequence[float]) -> list[int]:
    """Word indices from the most to the least important; equal importance: the earlier word first."""
    return sorted(range(len(importance)), key=lambda i: (-importance[i], i))


def how_many(r: float, n: int) -> int:
    """``floor(r · n + 1/2)``: the share ``r`` of ``n`` words, rounded half up (Python's round is half-even)."""
    return int(r * n + 0.5)


def drop_edits(text: str, tokens: Sequence[Span], dropped: set[int]) -> list[Edit]:
    """Deletions of the ``dropped`` token indices: each run of consecutive dropped tokens goes with the space after
    it, or, when a kept token follows without a space (``isn't it?``) or nothing follows, with the space before it;
    so the kept tokens keep their own spacing and no double space is left."""
    edits: list[Edit] = []
    index = 0
    while index < len(tokens):
        if index not in dropped:
            index += 1
            continue
        last = index
        while last + 1 in dropped:
            last += 1
        start, end = tokens[index][0], tokens[last][1]
        after = tokens[last + 1][0] if last + 1 < len(tokens) else end
        before = tokens[index - 1][1] if index > 0 else start
        if after > end:  # only whitespace lies between tokens
            end = after
        elif before < start:
            start = before
        edits.append(Edit(start, end, text[start:end], "", "drop"))
        index = last + 1
    return edits


@dataclass(frozen=True)
class _ImportanceSalad(ModelNoise):
    """Shared parameters and machinery of the importance-guided family (see the module docstring)."""

    model: str = param("", "the fine-tuned sequence classifier whose gradient ranks the words: a Hugging Face Hub "
                           "model id or a folder saved with save_pretrained()", file="model")
    r: float = param(0.5, "share of the text's words transformed (the least important ones)", min=0.0, max=1.0)
    lang: str = param("en", LANG_HELP)

    citation: ClassVar[str] = WORD_SALAD_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, model_based=True)

    task: ClassVar[str] = "Importance"
    extra: ClassVar[str] = "salad"
    label_remedy: ClassVar[str] = ("Use a classifier fine-tuned on this dataset's task: its gradient must say which "
                                   "words matter for that task")
    #: Version 2 (``drop@2`` ...) keeps a clitic of pre-tokenised text (``'s``) whole (:func:`salad_tokens`).
    clitics: ClassVar[bool] = False

    def load(self) -> ImportanceRuntime:
        return ImportanceRuntime(self.load_head, self.noise_id, self.model)

    @property
    def _runtime(self) -> ImportanceRuntime:
        return self.runtime()  # type: ignore[no-any-return]

    def _labels_sentence(self) -> str:
        """What the card says about the classifier's labels against the dataset's."""
        mapping = self.label_mapping()
        if mapping is None:
            return ("The classifier's task is unchecked: the data names no class labels to match its labels against "
                    "(a source without a class label), so the importance means something only if the classifier was "
                    "fine-tuned on a task that reads this text.")
        labels = ", ".join(mapping.model_labels)
        if mapping.how == "by name":
            return f"The classifier's labels ({labels}) are the dataset's, matched by name."
        return (f"The classifier names no labels ({labels}): only their number was checked against the dataset's "
                f"({', '.join(mapping.dataset_labels)}), a positional match (their order does not matter here: "
                "importance follows the predicted label), so whether it was fine-tuned on this task is unchecked: its "
                "model card says.")

    def describe(self) -> str:
        model = self.head.fingerprint()["model"]
        return (f"Word salad ({self.name}, Gupta et al., 2021): {self.action()} Word importance is the gradient "
                f"importance t · ∇t L of the predicted label of the classifier `{model['model']}` (revision "
                f"`{model['revision']}`), summed over each word's sub-tokens (magnitude of the sum; ties broken by "
                "position, the earlier word more important); the classifier reads the whole pair on pair tasks. "
                f"Words are tokens with a letter or digit{CLITIC_NOTE if self.clitics else ''}; punctuation is kept. The "
                f"labels are the source's: they no longer describe the text. {self._labels_sentence()}")

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        """Score every input of the split at once (the batches then find them in memory or the disk cache), with a
        progress bar when ``progress``."""
        self._runtime.importance(self._inputs(batch), progress)

    def _inputs(self, batch: NoiseInput) -> list[ClassifierInput]:
        """The classifier's input of each row: ``(text,)``, or the pair in the task's order."""
        pairs = batch.pairs if batch.pairs is not None else [None] * len(batch)
        return [(text,) if pair is None else (pair.first, pair.second) for text, pair in zip(batch.texts, pairs)]

    def apply(self, batch: NoiseInput) -> list[Noised]:
        results = self._runtime.importance(self._inputs(batch))
        pairs = batch.pairs if batch.pairs is not None else [None] * len(batch)
        out = []
        for text, item, pair, rng in zip(batch.texts, results, pairs, batch.rngs):
            tokens = self._tokens(text)
            word_tokens = [i for i, (a, b) in enumerate(tokens) if is_word(text[a:b])]
            words = [tokens[i] for i in word_tokens]
            order = ranking(word_importance(item, words, pair.target if pair is not None else 0))
            out.append(self._transform(text, tokens, word_tokens, order, rng))
        return out

    def _tokens(self, text: str) -> list[Span]:
        """The text's tokens: :func:`token_spans`, with clitics whole from version 2 on."""
        return salad_tokens(text, self.lang) if self.clitics else token_spans(text, self.lang)

    def action(self) -> str:
        """What the transformation does, one sentence for the card."""
        raise NotImplementedError

    def _transform(self, text: str, tokens: list[Span], word_tokens: list[int], order: list[int],
                   rng: ExampleRng) -> Noised:
        """The noised text from its tokens, which of them are words, and the words ranked by importance."""
        raise NotImplementedError

    def _substitute(self, text: str, tokens: list[Span], word_tokens: list[int], replaced: Sequence[int],
                    pool: Sequence[str], rng: ExampleRng) -> Noised:
        """Each word of ``replaced`` (word indices), in text order, replaced by a word drawn from ``pool`` (one draw
        per word; a draw equal to the word is no edit): what ``repeat`` and ``replace`` share."""
        edits = []
        for w in sorted(replaced):
            a, b = tokens[word_tokens[w]]
            new = rng.choice(pool)
            if new != text[a:b]:
                edits.append(Edit(a, b, text[a:b], new, self.name))
        return noised_from_edits(text, edits)


@dataclass(frozen=True)
class DropWords(_ImportanceSalad):
    """Delete the least important share r of the words (gradient importance of a fine-tuned classifier)."""

    name: ClassVar[str] = "drop"
    version: ClassVar[int] = 1
    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, model_based=True, deterministic=True)

    def action(self) -> str:
        return (f"the {self.r:.0%} least important words of the text are deleted (at least one word is kept); the "
                "others stay in order.")

    def _transform(self, text: str, tokens: list[Span], word_tokens: list[int], order: list[int],
                   rng: ExampleRng) -> Noised:
        k = min(how_many(self.r, len(order)), max(len(order) - 1, 0))
        dropped = {word_tokens[w] for w in order[len(order) - k:]} if k else set()
        return noised_from_edits(text, drop_edits(text, tokens, dropped))


@dataclass(frozen=True)
class RepeatWords(_ImportanceSalad):
    """Replace each of the least important share r of the words by one of the more important words."""

    name: ClassVar[str] = "repeat"
    version: ClassVar[int] = 1

    def action(self) -> str:
        return (f"each of the {self.r:.0%} least important words (at least one word is kept) is replaced by one of the "
                "remaining, more important words of the text, drawn at random per example.")

    def _transform(self, text: str, tokens: list[Span], word_tokens: list[int], order: list[int],
                   rng: ExampleRng) -> Noised:
        k = min(how_many(self.r, len(order)), max(len(order) - 1, 0))
        if not k:
            return Noised(text, ())
        pool = [text[slice(*tokens[word_tokens[w]])] for w in order[: len(order) - k]]
        return self._substitute(text, tokens, word_tokens, order[len(order) - k:], pool, rng)


@dataclass(frozen=True)
class ReplaceWords(_ImportanceSalad):
    """Replace each of the least important share r of the words by a random word of the model's vocabulary."""

    name: ClassVar[str] = "replace"
    version: ClassVar[int] = 1

    def action(self) -> str:
        return (f"each of the {self.r:.0%} least important words is replaced by a random whole word of the "
                "classifier's vocabulary (alphabetic, no special tokens or continuation pieces), drawn per example.")

    def _transform(self, text: str, tokens: list[Span], word_tokens: list[int], order: list[int],
                   rng: ExampleRng) -> Noised:
        k = how_many(self.r, len(order))
        if not k:
            return Noised(text, ())
        return self._substitute(text, tokens, word_tokens, order[len(order) - k:], self._pool(text), rng)

    def _pool(self, text: str) -> tuple[str, ...]:
        """The words a replacement is drawn from: the whole vocabulary."""
        return self._runtime.vocabulary


@dataclass(frozen=True)
class CopyOne(_ImportanceSalad):
    """Pair tasks: the second text becomes the single most important word of the first."""

    name: ClassVar[str] = "copyone"
    version: ClassVar[int] = 1
    capabilities: ClassVar[Capabilities] = Capabilities(input="pair", protects_spans=False, edit_log="whole-field",
                                                        model_based=True, deterministic=True)

    def check(self) -> None:
        """``r`` is declared by the shared parameters but never read (one word is copied whatever it is): version 1
        keeps it declared, so that its recorded parameters stay as they were, and refuses any other value."""
        super().check()
        if self.r != 0.5:
            raise ConfigError(f"{self.noise_id} takes no r: it copies the single most important word whatever r is")

    def action(self) -> str:
        return "the second text of the pair is replaced by the single most important word of the first text."

    def _inputs(self, batch: NoiseInput) -> list[ClassifierInput]:
        return [(first, second) for first, second in batch.texts]

    def apply(self, batch: NoiseInput) -> list[Noised]:
        out = []
        for (first, second), item in zip(batch.texts, self._runtime.importance(self._inputs(batch))):
            words = [(a, b) for a, b in self._tokens(first) if is_word(first[a:b])]
            if not words:
                out.append(Noised(second, (), "copyone: the first text has no word"))
                continue
            best = ranking(word_importance(item, words, 0))[0]
            out.append(whole_field(second, first[slice(*words[best])], "copyone"))
        return out


@dataclass(frozen=True)
class CopyOneV2(CopyOne):
    """Pair tasks: the second text becomes the single most important word of the first (a clitic such as ``'s``
    is one word with its apostrophe; no ``r``)."""

    version: ClassVar[int] = 2
    clitics: ClassVar[bool] = True

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        """The shared parameters but ``r``: not declared, so ``copyone@2(r=...)`` is refused as a parameter it does
        not take, and neither the card nor the seed records it."""
        return tuple(spec for spec in super().param_specs() if spec.name != "r")


# --- version 2: clitics whole, replacements in the text's script -----------------------------------------------------


@dataclass(frozen=True)
class DropWordsV2(DropWords):
    """Delete the least important share r of the words (a clitic such as ``'s`` is one word with its apostrophe)."""

    version: ClassVar[int] = 2
    clitics: ClassVar[bool] = True


@dataclass(frozen=True)
class RepeatWordsV2(RepeatWords):
    """Replace each of the least important share r of the words by one of the more important words (a clitic such
    as ``'s`` is one word with its apostrophe)."""

    version: ClassVar[int] = 2
    clitics: ClassVar[bool] = True


@dataclass(frozen=True)
class ReplaceWordsV2(ReplaceWords):
    """Replace each of the least important share r of the words by a random vocabulary word of the text's script (a
    clitic such as ``'s`` is one word with its apostrophe)."""

    version: ClassVar[int] = 2
    clitics: ClassVar[bool] = True

    def action(self) -> str:
        return (f"each of the {self.r:.0%} least important words is replaced by a random whole word of the "
                "classifier's vocabulary written in the text's own scripts (alphabetic, no special tokens or "
                "continuation pieces), drawn per example.")

    def _pool(self, text: str) -> tuple[str, ...]:
        """The vocabulary words written in the text's own scripts."""
        return self._runtime.vocabulary_in(letter_scripts(text))
