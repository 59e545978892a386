"""Model heads: the one path by which noisecraft runs a Hugging Face encoder over text.

A :class:`Head` is a resolved model (:class:`~noisecraft.runtime.loading.ModelRef`), a placement and the
settings that shape its inputs (``max_length``). :meth:`Head.run` takes a :class:`Task` and a list of
inputs and does, for the inputs the result cache does not hold:

    tokenise (``Task.encode``) -> length-bucket by tokens under ``token_budget``, ties broken by a digest of
    the content (:func:`~noisecraft.runtime.batching.run_batched`) -> ``tokenizer.pad`` -> forward under
    ``torch.inference_mode`` (or with gradients, for :class:`Importance`) -> raw outputs per item
    (``Task.read``) -> a small pure post-processor per item (``Task.finish``, from
    :mod:`~noisecraft.runtime.postprocess`) -> the result cache, one transaction per batch.

The tasks: :class:`Probabilities` (sequence classification), :class:`Answers` (extractive QA, best span
over stride windows), :class:`WordLabels` (token classification, first sub-token per word),
:class:`Entities` (token classification, entity spans), :class:`Embeddings` (attention-mask weighted mean
of the last hidden state) and :class:`Importance` (input-gradient importance ``t_i · ∇_{t_i} L`` of the
loss of the predicted label, one backward per batch). :meth:`Head.probabilities`,
:meth:`Head.embeddings` and :meth:`Head.importance` are the short forms. A :class:`BoundHead` is a head bound to one
task with a per-process memory in front of the disk cache: what a model-based noise model queries (a victim, a
gradient ranking words, an entity tagger).

Two words for two ideas, used everywhere in the runtime:

* **fingerprint**: what decides an output: model + resolved revision, task and its settings, ``max_length``,
  precision, library versions. It is the result cache's key. Never the device, the token budget or the
  batch size: those change how fast, not what (up to the last bits of float arithmetic, which
  :data:`~noisecraft.runtime.postprocess.DECIMALS` rounds away for probabilities).
* **provenance**: the fingerprint plus the device, as cards and reports record it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

from noisecraft.errors import ConfigError
from noisecraft.runtime import postprocess
from noisecraft.runtime.batching import run_batched, stable_key
from noisecraft.runtime.cache import CurrentCache, cached_map, input_key
from noisecraft.runtime.device import Placement
from noisecraft.runtime.labels import LabelMapping, class_mapping
from noisecraft.runtime.loading import ModelRef, library_versions, load_pretrained, newly_initialised
from noisecraft.runtime.offload import ChunkRunner, chunk_runner, gather_chunks

#: Padded tokens per batch (``batch size x longest input``) when none is given. On CPU larger batches stop
#: paying off early (measured in benchmarks/eval_throughput.py); a GPU takes far more.
DEFAULT_TOKEN_BUDGET = {"cpu": 4_096, "mps": 32_768, "cuda": 131_072}
#: Most items in one batch, whatever the budget.
MAX_BATCH = 512
#: Longest input fed to a model whose tokenizer states no limit.
FALLBACK_MAX_LENGTH = 512
#: Inputs tokenised and run per step (results are stored after each batch; this bounds the memory of the
#: tokenised features). Missing inputs are cut into steps in the order of their digests, never their position.
STEP = 4096
#: The tensors a model reads; everything else an encoding holds (offsets, word ids) stays on the host.
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")

Store = Callable[[list[Any], Sequence[Any]], None]


@dataclass
class Feature:
    """One model input (a text, a pair, or one window of a long context) and what its post-processor needs."""

    owner: int  # index of the input it belongs to (among the inputs being computed)
    window: int  # 0, or the window's number for a long context
    ids: dict[str, list[int]]  # the model inputs (input_ids, attention_mask, token_type_ids)
    extra: dict[str, Any] = field(default_factory=dict)


class Task:
    """What a head computes: the model class it needs, how inputs are tokenised, what is read from a batch's
    output, and the pure post-processing of each item. ``settings`` enter the fingerprint."""

    name: ClassVar[str]
    auto_class: ClassVar[str]
    #: Whether the forward needs gradients (then it runs outside ``inference_mode``).
    gradient: ClassVar[bool] = False

    @property
    def settings(self) -> dict[str, Any]:
        return {}

    def encode(self, head: Head, inputs: list[Any]) -> list[Feature]:
        raise NotImplementedError

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        """One raw value per feature of the batch (numpy arrays on the host)."""
        raise NotImplementedError

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> Any:
        """The JSON value of one input, from the raw values of its features (in window order)."""
        raise NotImplementedError


def _ids(encoding: Any, index: int) -> dict[str, list[int]]:
    return {name: list(encoding[name][index]) for name in MODEL_INPUTS if name in encoding}


def _split(inputs: list[Any]) -> tuple[list[str], list[str] | None]:
    """Texts and (for pairs) second texts of classifier inputs: ``[text]``/``(text,)`` or ``(first, second)``."""
    arity = {len(item) for item in inputs}
    if len(arity) != 1 or arity - {1, 2}:
        raise ValueError(f"classifier inputs must all be one text or all a pair of texts (got lengths {sorted(arity)})")
    firsts = [item[0] for item in inputs]
    return firsts, ([item[1] for item in inputs] if 2 in arity else None)


class _Sequences(Task):
    """Sequence-level inputs: one text or a pair, truncated longest-first to the head's ``max_length``."""

    def encode(self, head: Head, inputs: list[Any]) -> list[Feature]:
        features: list[Feature] = []
        for arity in (1, 2):  # one- and two-text inputs are tokenised apart
            chosen = [i for i, item in enumerate(inputs) if len(item) == arity]
            if not chosen:
                continue
            firsts, seconds = _split([inputs[i] for i in chosen])
            encoding = head.tokenizer(firsts, seconds, truncation=True, max_length=head.max_length,
                                      return_offsets_mapping=self._offsets(head))
            for j, i in enumerate(chosen):
                features.append(Feature(i, 0, _ids(encoding, j), self._extra(encoding, j)))
        return features

    def _offsets(self, head: Head) -> bool:
        return False

    def _extra(self, encoding: Any, index: int) -> dict[str, Any]:
        return {}


class Probabilities(_Sequences):
    """Class probabilities of a sequence classifier (soft-max over its labels, rounded: see postprocess)."""

    name = "probabilities"
    auto_class = "AutoModelForSequenceClassification"

    @property
    def settings(self) -> dict[str, Any]:
        return {"truncation": "longest_first", "decimals": postprocess.DECIMALS}

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        import torch

        return list(torch.softmax(output.logits.float(), dim=-1).cpu().numpy())

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> list[float]:
        return postprocess.probabilities(raws[0])


class Embeddings(_Sequences):
    """One vector per input: the attention-mask weighted mean of the encoder's last hidden state."""

    name = "embeddings"
    auto_class = "AutoModel"

    @property
    def settings(self) -> dict[str, Any]:
        return {"truncation": "longest_first", "pooling": "attention-mask weighted mean of the last hidden state"}

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        hidden = output.last_hidden_state.float().cpu().numpy()
        mask = tensors["attention_mask"].cpu().numpy()
        return [(hidden[i], mask[i]) for i in range(len(batch))]

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> list[float]:
        hidden, mask = raws[0]
        return postprocess.mean_pooled(hidden, mask)


class Importance(_Sequences):
    """Input-gradient importance of every token for the classifier's **predicted** label.

    For token ``i`` with input embedding ``t_i``: ``t_i · ∇_{t_i} L``, ``L`` the cross-entropy of the predicted
    label (negative: the token supports the prediction; positive: it works against it). A batch is one
    forward and **one** backward of the summed loss (the items of a batch do not interact, so each item's
    gradient is its own). The result of each input: ``label``, ``tokens``, ``scores``, ``word_ids``,
    ``sequence_ids`` and ``offsets`` (see :func:`~noisecraft.runtime.postprocess.importance`); sum sub-token
    scores into words with :func:`~noisecraft.runtime.postprocess.word_scores`.
    """

    name = "importance"
    auto_class = "AutoModelForSequenceClassification"
    gradient = True

    @property
    def settings(self) -> dict[str, Any]:
        return {"truncation": "longest_first", "score": "t . grad_t L(predicted label), input embeddings"}

    def _offsets(self, head: Head) -> bool:
        return bool(getattr(head.tokenizer, "is_fast", False))

    def _extra(self, encoding: Any, index: int) -> dict[str, Any]:
        fast = getattr(encoding, "is_fast", False)
        ids = encoding["input_ids"][index]
        return {"word_ids": encoding.word_ids(index) if fast else [None] * len(ids),
                "sequence_ids": encoding.sequence_ids(index) if fast else [None] * len(ids),
                "offsets": [tuple(o) for o in encoding["offset_mapping"][index]] if fast else [None] * len(ids)}

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        import torch

        logits = output.logits.float()
        predicted = logits.argmax(dim=-1)
        embeds = tensors["inputs_embeds"]
        loss = torch.nn.functional.cross_entropy(logits, predicted, reduction="sum")  # items do not interact
        (gradient,) = torch.autograd.grad(loss, embeds)  # one backward for the batch, no parameter gradients
        head.check_finite("input gradients", gradient)
        scores = (embeds * gradient).sum(dim=-1).float().detach().cpu().numpy()
        mask = tensors["attention_mask"].cpu().numpy()
        return [(scores[i], mask[i], int(predicted[i])) for i in range(len(batch))]

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> dict[str, Any]:
        scores, mask, label = raws[0]
        feature = features[0]
        tokens = head.tokenizer.convert_ids_to_tokens(feature.ids["input_ids"])
        return postprocess.importance(scores, mask, tokens, feature.extra["word_ids"], feature.extra["sequence_ids"],
                                      feature.extra["offsets"], label)


class WordLabels(Task):
    """The model's label id for every word of a pre-split text (read at the word's first sub-token; ``-1`` for a
    word cut off by ``max_length``). Inputs are lists of words."""

    name = "word-labels"
    auto_class = "AutoModelForTokenClassification"

    @property
    def settings(self) -> dict[str, Any]:
        return {"word_label": "first sub-token"}

    def encode(self, head: Head, inputs: list[Any]) -> list[Feature]:
        encoding = head.tokenizer([list(words) for words in inputs], is_split_into_words=True, truncation=True,
                                  max_length=head.max_length)
        return [Feature(i, 0, _ids(encoding, i), {"word_ids": encoding.word_ids(i)}) for i in range(len(inputs))]

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        return list(output.logits.argmax(dim=-1).cpu().numpy())

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> list[int]:
        return postprocess.first_subtoken_labels(raws[0], features[0].extra["word_ids"], len(item))


class Entities(Task):
    """Entity spans ``[start, end, type]`` (character offsets) of a text, sub-token labels grouped as
    transformers' token-classification pipeline's ``simple`` aggregation groups them."""

    name = "entities"
    auto_class = "AutoModelForTokenClassification"

    @property
    def settings(self) -> dict[str, Any]:
        return {"aggregation": "simple"}

    def encode(self, head: Head, inputs: list[Any]) -> list[Feature]:
        encoding = head.tokenizer(list(inputs), truncation=True, max_length=head.max_length,
                                  return_offsets_mapping=True, return_special_tokens_mask=True)
        return [Feature(i, 0, _ids(encoding, i), {"offsets": encoding["offset_mapping"][i],
                                                   "special": encoding["special_tokens_mask"][i]})
                for i in range(len(inputs))]

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        return list(output.logits.argmax(dim=-1).cpu().numpy())

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> list[list[Any]]:
        feature = features[0]
        n = len(feature.ids["input_ids"])
        names = [head.id2label[int(i)] for i in raws[0][:n]]
        return [list(span) for span in postprocess.entity_spans(names, feature.extra["offsets"], feature.extra["special"])]


class Answers(Task):
    """The best answer span of a question over its context (inputs: ``[question, context]``), windows of
    ``max_length`` tokens overlapping by ``stride`` (the standard SQuAD recipe: question clipped to
    ``max_query_length`` tokens, ``n_best`` start and end candidates per window, answers at most
    ``max_answer_length`` tokens, best start + end logit wins). Each answer is ``{"text", "score"}``."""

    name = "answers"
    auto_class = "AutoModelForQuestionAnswering"

    def __init__(self, max_length: int, max_answer_length: int = 30, n_best: int = 20) -> None:
        self.max_length = min(384, max_length)
        self.stride = 128 if self.max_length >= 384 else self.max_length // 4
        self.max_query_length = min(64, self.max_length // 4)
        self.max_answer_length, self.n_best = max_answer_length, n_best

    @property
    def settings(self) -> dict[str, Any]:
        return {"max_length": self.max_length, "stride": self.stride, "max_query_length": self.max_query_length,
                "max_answer_length": self.max_answer_length, "n_best": self.n_best}

    def _clip_questions(self, head: Head, questions: list[str]) -> list[str]:
        """Questions cut after ``max_query_length`` tokens (at a token boundary of the text)."""
        encoding = head.tokenizer(questions, add_special_tokens=False, return_offsets_mapping=True)
        return [q if len(offsets) <= self.max_query_length else q[: offsets[self.max_query_length - 1][1]]
                for q, offsets in zip(questions, encoding["offset_mapping"])]

    def encode(self, head: Head, inputs: list[Any]) -> list[Feature]:
        questions = self._clip_questions(head, [q for q, _ in inputs])
        encoding = head.tokenizer(questions, [c for _, c in inputs], truncation="only_second",
                                  max_length=self.max_length, stride=self.stride, return_overflowing_tokens=True,
                                  return_offsets_mapping=True)
        features: list[Feature] = []
        for j, owner in enumerate(encoding["overflow_to_sample_mapping"]):
            window = features[-1].window + 1 if features and features[-1].owner == owner else 0
            offsets = [tuple(o) if s == 1 else None
                       for o, s in zip(encoding["offset_mapping"][j], encoding.sequence_ids(j))]
            features.append(Feature(owner, window, _ids(encoding, j), {"offsets": offsets}))
        return features

    def read(self, head: Head, output: Any, batch: list[Feature], tensors: dict[str, Any]) -> list[Any]:
        starts, ends = output.start_logits.double().cpu().numpy(), output.end_logits.double().cpu().numpy()
        return [(starts[i, : len(f.ids["input_ids"])], ends[i, : len(f.ids["input_ids"])]) for i, f in enumerate(batch)]

    def finish(self, head: Head, item: Any, features: list[Feature], raws: list[Any]) -> dict[str, Any]:
        context = item[1]
        return postprocess.best_of_windows([
            postprocess.best_span(start, end, f.extra["offsets"], context, self.n_best, self.max_answer_length)
            for f, (start, end) in zip(features, raws)])


class Head:
    """A Hugging Face encoder ready to run :class:`Task` s over batches of inputs (see the module docstring).

    ``max_length``: longest input in tokens (default: the tokenizer's stated limit, else the position table's,
    at most 512). ``token_budget``: padded tokens per batch (default by device kind: 4,096 on CPU), which
    changes speed and memory, never outputs. ``cache=False`` computes without the on-disk cache.
    ``tokenizer_options`` are passed to ``AutoTokenizer.from_pretrained`` and enter the fingerprint.
    """

    def __init__(self, ref: ModelRef, placement: Placement, *, max_length: int | None = None,
                 token_budget: int | None = None, max_batch: int = MAX_BATCH, cache: bool = True,
                 tokenizer_options: dict[str, Any] | None = None, progress: bool = False) -> None:
        if token_budget is not None and token_budget < 1:
            raise ValueError("token_budget must be at least 1")
        self.ref, self.placement = ref, placement
        self.token_budget = token_budget or DEFAULT_TOKEN_BUDGET[placement.kind]
        self.max_batch, self.use_cache, self.progress = max_batch, cache, progress
        self.tokenizer_options = dict(tokenizer_options or {})
        self._max_length = max_length
        self._caches: dict[str, CurrentCache] = {}
        self.computed = 0  # inputs that went through the model (the cache did not have them)

    # --- what is loaded (once per process: load_pretrained memoises by model, placement and options) ---

    @property
    def tokenizer(self) -> Any:
        from transformers import AutoTokenizer

        return load_pretrained(AutoTokenizer, self.ref, **self.tokenizer_options)

    @property
    def config(self) -> Any:
        from transformers import AutoConfig

        return load_pretrained(AutoConfig, self.ref)

    def model(self, task: Task) -> Any:
        """The model with the task's head (``AutoModelForSequenceClassification`` and so on), on the placement.

        A checkpoint without trained weights for that head (a QA model loaded as a classifier gets a random
        classification layer) is refused: its outputs would be noise recorded as results. An encoder read for
        embeddings may lack only the pooler, which mean pooling does not use."""
        import transformers

        model = load_pretrained(getattr(transformers, task.auto_class), self.ref, self.placement)
        new = [k for k in newly_initialised(model) if not (task.auto_class == "AutoModel" and "pooler" in k)]
        if new:
            shown = ", ".join(new[:4]) + (f" and {len(new) - 4} more" if len(new) > 4 else "")
            raise ConfigError(f"model {self.ref.fingerprint()['model']} ({self.ref.revision}) has no trained weights "
                              f"for {shown}: loaded with {task.auto_class} they would be drawn at random. It is not a "
                              f"checkpoint for {task.name}; use one fine-tuned for it")
        return model

    @property
    def id2label(self) -> dict[int, str]:
        return {int(k): str(v) for k, v in (getattr(self.config, "id2label", None) or {}).items()}

    @property
    def max_length(self) -> int:
        """The longest input in tokens: as given, else the tokenizer's stated limit (:data:`FALLBACK_MAX_LENGTH` when
        it states none), never more than the model's position table holds (a longer input would not run)."""
        if self._max_length is None:
            stated = getattr(self.tokenizer, "model_max_length", None)
            limit = stated if isinstance(stated, int) and 0 < stated < 1_000_000 else FALLBACK_MAX_LENGTH
            positions = getattr(self.config, "max_position_embeddings", None)
            self._max_length = min(limit, positions) if isinstance(positions, int) and positions > 0 else limit
        return self._max_length

    def truncated(self, max_length: int) -> Head:
        """The same model and settings with inputs truncated to ``max_length`` tokens, or to the model's own limit
        (:attr:`max_length` as stated by its tokenizer or position table) when that is lower."""
        return Head(self.ref, self.placement, max_length=min(max_length, self.max_length),
                    token_budget=self.token_budget, max_batch=self.max_batch, cache=self.use_cache,
                    tokenizer_options=self.tokenizer_options, progress=self.progress)

    # --- fingerprint and provenance -------------------------------------------------------------------------------

    def fingerprint(self, task: Task) -> dict[str, Any]:
        """What decides the outputs of ``task`` (the cache key): never the device, budget or batch size."""
        return {"model": self.ref.fingerprint(), "task": task.name, "settings": task.settings,
                "max_length": self.max_length, "tokenizer": self.tokenizer_options, "dtype": self.placement.dtype,
                "libraries": library_versions("torch", "transformers")}

    def provenance(self, task: Task) -> dict[str, Any]:
        """The fingerprint plus the device, as cards and reports record it."""
        return {**self.fingerprint(task), "device": self.placement.kind}

    def _cache(self, task: Task) -> Any:
        digest = json.dumps(self.fingerprint(task), sort_keys=True)
        if digest not in self._caches:
            self._caches[digest] = CurrentCache("heads", lambda: self.fingerprint(task))
        return self._caches[digest].get()

    # --- running ----------------------------------------------------------------------------------------------------

    def run(self, task: Task, inputs: Sequence[Any], desc: str = "") -> list[Any]:
        """The output of every input, in input order; each distinct input computed at most once, ever (cached)."""
        items = [list(item) if isinstance(item, tuple) else item for item in inputs]
        cache = self._cache(task) if self.use_cache else None
        runner = chunk_runner()
        if runner is None:
            return cached_map(cache, items, lambda missing, store: self._compute(task, missing, store, desc or task.name))
        return cached_map(cache, items, lambda missing, store: self._compute_with(runner, task, missing, store,
                                                                                  desc or task.name))

    def probabilities(self, inputs: Sequence[Sequence[str]]) -> list[list[float]]:
        """Class probabilities of every input (``(text,)`` or ``(first, second)``), in input order."""
        return self.run(Probabilities(), inputs)

    def embeddings(self, inputs: Sequence[Sequence[str]]) -> list[list[float]]:
        """The mean-pooled embedding of every input (``(text,)`` or ``(first, second)``), in input order."""
        return self.run(Embeddings(), inputs)

    def importance(self, inputs: Sequence[Sequence[str]]) -> list[dict[str, Any]]:
        """Input-gradient importance of every token of every input for its predicted label (see :class:`Importance`)."""
        return self.run(Importance(), inputs)

    def _compute(self, task: Task, items: list[Any], store: Store, desc: str) -> list[Any]:
        self.model(task)  # loaded (and checked) before anything is tokenised
        self.computed += len(items)
        results: list[Any] = [None] * len(items)
        for step in _steps(items):
            done = self._compute_step(task, [items[i] for i in step], store, desc)
            for i, value in zip(step, done):
                results[i] = value
        return results

    def _compute_with(self, runner: ChunkRunner, task: Task, items: list[Any], store: Store, desc: str) -> list[Any]:
        """:meth:`_compute` with each step computed by ``runner`` (model actors elsewhere, each loading the model
        once): the same steps, so the same outputs; each finished step is stored here, the cache's one writer."""
        steps = _steps(items)
        chunks = [[items[i] for i in step] for step in steps]
        results: list[Any] = [None] * len(items)
        for _ in gather_chunks(runner, partial(_compute_chunk, self, task, desc), chunks, steps, store, results, desc):
            pass
        self.computed += len(items)
        return results

    def _compute_step(self, task: Task, items: list[Any], store: Store, desc: str) -> list[Any]:
        features = task.encode(self, items)
        windows: list[list[int]] = [[] for _ in items]
        for k, feature in enumerate(features):
            windows[feature.owner].append(k)
        raws: list[Any] = [None] * len(features)
        left = [len(w) for w in windows]
        results: list[Any] = [None] * len(items)

        def finished(indices: list[int], outputs: Sequence[Any]) -> None:
            complete = []
            for k, raw in zip(indices, outputs):
                raws[k] = raw
                owner = features[k].owner
                left[owner] -= 1
                if left[owner] == 0:
                    results[owner] = task.finish(self, items[owner], [features[w] for w in windows[owner]],
                                                 [raws[w] for w in windows[owner]])
                    complete.append(owner)
            if complete:
                store([items[i] for i in complete], [results[i] for i in complete])

        keys = [stable_key(f"{input_key(items[f.owner])}\0{f.window}") for f in features]
        run_batched(features, [len(f.ids["input_ids"]) for f in features], lambda batch: self.forward(task, batch),
                    token_budget=self.token_budget, max_batch=self.max_batch, keys=keys, desc=desc, unit="input",
                    progress=self.progress, on_batch=finished)
        for owner, count in enumerate(left):
            if count:  # an input the tokenizer gave no feature (cannot happen with a valid task): never silent
                raise RuntimeError(f"{task.name}: input {owner} produced no model input")
        return results

    def forward(self, task: Task, batch: list[Feature]) -> list[Any]:
        """One padded batch through the model: the only place noisecraft calls an encoder's forward."""
        import torch

        model = self.model(task)
        # right padding: position i of every output is token i of the item (post-processors slice by length)
        padded = self.tokenizer.pad([f.ids for f in batch], padding_side="right", return_tensors="pt")
        tensors = dict(padded.to(self.placement.device))
        if not task.gradient:
            with torch.inference_mode():
                output = model(**tensors)
                self._check_outputs(output)
                return task.read(self, output, batch, tensors)
        with torch.enable_grad():
            embeds = model.get_input_embeddings()(tensors.pop("input_ids")).detach().requires_grad_(True)
            self.check_finite("input embeddings", embeds)
            tensors["inputs_embeds"] = embeds
            output = model(**tensors)
            self._check_outputs(output)
            return task.read(self, output, batch, tensors)

    def _check_outputs(self, output: Any) -> None:
        """Every tensor a forward returned (logits, span logits, hidden states) checked by :meth:`check_finite`."""
        import torch

        for name, value in output.items():
            if isinstance(value, torch.Tensor):
                self.check_finite(name, value)

    def check_finite(self, what: str, tensor: Any) -> None:
        """Refuse a NaN or infinite value in a model's ``what`` (logits, gradients, embeddings): the argmax, soft-max
        or ranking read from it would be an arbitrary answer recorded as the model's (a NaN classifier "ranks"
        words by position and scores as a constant prediction)."""
        import torch

        if not bool(torch.isfinite(tensor).all()):
            raise ConfigError(f"model {self.ref.name} gives NaN or infinite "
                              f"{what}: its weights or its precision ({self.placement.dtype}) are broken; "
                              "nothing computed from it can be trusted")


def _steps(items: list[Any]) -> list[list[int]]:
    """Indices of ``items`` cut into steps of :data:`STEP`, in the order of their digests (never their position)."""
    order = sorted(range(len(items)), key=lambda i: input_key(items[i]))
    return [order[start : start + STEP] for start in range(0, len(order), STEP)]


def _compute_chunk(head: Head, task: Task, desc: str, items: list[Any]) -> list[Any]:
    """One step computed where a chunk runner sends it (its caller stores the outputs)."""
    return head._compute(task, items, lambda inputs, outputs: None, desc)


class BoundHead:
    """A :class:`Head` bound to one :class:`Task`, with a per-process memory in front of the head's on-disk cache:
    what a model-based noise model queries (a classifier attacked, a gradient ranking words, a tagger). A search
    asks for the same inputs again and again; each distinct input goes to the head at most once per process."""

    def __init__(self, head: Head, task: Task, desc: str = "") -> None:
        self.head, self.task, self.desc = head, task, desc or task.name
        self._memory: dict[Any, Any] = {}

    @property
    def computed(self) -> int:
        """Inputs that went through the model in this process (neither the memory nor the disk cache had them)."""
        return self.head.computed

    @property
    def id2label(self) -> dict[int, str]:
        return self.head.id2label

    def fingerprint(self) -> dict[str, Any]:
        """What decides the outputs (the disk cache's key; see the module docstring)."""
        return self.head.fingerprint(self.task)

    def provenance(self) -> dict[str, Any]:
        """The fingerprint plus the device, as the card records it."""
        return self.head.provenance(self.task)

    def label_mapping(self, dataset_labels: Sequence[str], remedy: str | None = None) -> LabelMapping:
        """The model's labels matched to the dataset's class names by name (see :func:`class_mapping`)."""
        return class_mapping(str(self.fingerprint()["model"]["model"]), self.id2label, dataset_labels, remedy=remedy)

    def missing(self, inputs: Sequence[Any]) -> list[Any]:
        """The distinct inputs this process has not asked the head about yet (the disk cache may still hold them)."""
        return list(dict.fromkeys(i for i in inputs if i not in self._memory))

    def run(self, inputs: Sequence[Any], progress: bool = False) -> list[Any]:
        """The task's output of every input, in input order; each distinct input computed at most once (a progress
        bar over the model's batches when ``progress``)."""
        missing = self.missing(inputs)
        if missing:
            self.head.progress = progress
            self._memory.update(zip(missing, self.head.run(self.task, missing, desc=self.desc)))
        return [self._memory[i] for i in inputs]


def load_head(name: str, revision: str | None = None, device: str = "auto", dtype: str = "auto", *,
              extra: str = "eval", **options: Any) -> Head:
    """A :class:`Head` for a Hub id (and revision) or a folder saved with ``save_pretrained``; ``options`` as
    :class:`Head` takes them (``max_length``, ``token_budget``, ``cache``, ...). ``extra`` names the extra that
    installs transformers in the error shown when it is missing."""
    from noisecraft.extras import require
    from noisecraft.runtime.device import pick_placement
    from noisecraft.runtime.loading import resolve_model

    require("transformers", extra)
    return Head(resolve_model(name, revision), pick_placement(device, dtype, extra=extra), **options)


__all__ = ["Answers", "BoundHead", "Embeddings", "Entities", "Feature", "Head", "Importance", "Probabilities", "Task",
           "WordLabels", "load_head"]
