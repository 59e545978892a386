"""Running a model over inputs: length-bucketed batches, raw outputs, one predictor per task.

Each predictor turns a list of inputs into one JSON value per input, the unit the prediction cache
stores (:func:`noisecraft.runtime.cached_map`), and declares the settings that shape those values (they
enter the cache namespace). Outputs are the model's own, before any label mapping, so a new label map
reuses the cache:

* classification: the probabilities of the model's labels;
* extractive QA: the best answer span over all windows of a long context (text and score);
* token classification: the model's label id for each word (its first sub-token), ``-1`` for a word
  cut off by the length limit.

Inner batches come from :func:`noisecraft.runtime.run_batched` (sorted by length, ties broken by a
digest of the input), so which inputs share a batch depends on the token budget and the set of new
inputs, never on their order. On CPU in float32 padding can still move logits in the last bits;
predictions (argmax, best span) are what the harness compares, and the tests check that they do not
change with the token budget.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from noisecraft.harness.models import MAX_BATCH, EvalModel
from noisecraft.harness.tasks import CLASSIFICATION, QA, TOKENS
from noisecraft.runtime import run_batched
from noisecraft.seeding import canonical_json

Store = Callable[[list[Any], Sequence[Any]], None]
#: Inputs tokenised and scored per step of a long QA run (results are stored after each).
QA_CHUNK = 1024


def _key(value: Any, part: int = 0) -> bytes:
    return hashlib.blake2b(f"{canonical_json(value)}\0{part}".encode(), digest_size=8).digest()


def _pad(model: EvalModel, features: list[dict[str, list[int]]]) -> dict[str, Any]:
    """Right-padded tensors of a batch on the model's device (logits of position i stay at i)."""
    import torch

    longest = max(len(f["input_ids"]) for f in features)
    pad_id = model.tokenizer.pad_token_id or 0
    batch: dict[str, Any] = {}
    for name in features[0]:
        fill = pad_id if name == "input_ids" else 0
        rows = [f[name] + [fill] * (longest - len(f[name])) for f in features]
        batch[name] = torch.tensor(rows, dtype=torch.long, device=model.placement.device)
    return batch


def _forward(model: EvalModel, features: list[dict[str, list[int]]]) -> Any:
    import torch

    with torch.inference_mode():
        return model.model(**_pad(model, features))


_MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _features(encoding: Any, index: int) -> dict[str, list[int]]:
    return {name: encoding[name][index] for name in _MODEL_INPUTS if name in encoding}


class ClassifierPredictor:
    """Label probabilities of one sentence or a sentence pair (truncated longest-first to the model's limit)."""

    def __init__(self, model: EvalModel) -> None:
        self.model = model
        self.settings = {"task": CLASSIFICATION, "max_length": model.max_length, "truncation": "longest_first",
                         "output": "softmax over the model's labels"}

    def __call__(self, items: list[list[str]], store: Store, progress: bool = True) -> list[list[float]]:
        results: list[Any] = [None] * len(items)
        for arity in sorted({len(item) for item in items}):  # one- and two-sentence inputs are tokenised apart
            chosen = [i for i, item in enumerate(items) if len(item) == arity]
            batch_items = [items[i] for i in chosen]
            first = [item[0] for item in batch_items]
            second = [item[1] for item in batch_items] if arity == 2 else None
            encoding = self.model.tokenizer(first, second, truncation=True, max_length=self.model.max_length)
            features = [_features(encoding, j) for j in range(len(batch_items))]

            def scored(indices: list[int], outputs: Sequence[Any], batch_items: list[Any] = batch_items) -> None:
                store([batch_items[i] for i in indices], outputs)

            outputs = run_batched(features, [len(f["input_ids"]) for f in features], self._probabilities,
                                  token_budget=self.model.token_budget, max_batch=MAX_BATCH,
                                  keys=[_key(item) for item in batch_items], desc=f"{self.model.label}", unit="input",
                                  progress=progress, on_batch=scored)
            for i, output in zip(chosen, outputs):
                results[i] = output
        return results

    def _probabilities(self, features: list[dict[str, list[int]]]) -> list[list[float]]:
        import torch

        logits = _forward(self.model, features).logits.float()
        return torch.softmax(logits, dim=-1).cpu().tolist()


class QAPredictor:
    """Best answer span of a question over its context, windows of ``max_length`` tokens overlapping by ``stride``
    (the standard SQuAD recipe: question clipped to ``max_query_length`` tokens, ``n_best`` start and end
    candidates per window, answers at most ``max_answer_length`` tokens, best start + end logit wins)."""

    def __init__(self, model: EvalModel, max_answer_length: int = 30, n_best: int = 20) -> None:
        self.model = model
        self.max_length = min(384, model.max_length)
        self.stride = 128 if self.max_length >= 384 else self.max_length // 4
        self.max_query_length = min(64, self.max_length // 4)
        self.max_answer_length = max_answer_length
        self.n_best = n_best
        self.settings = {"task": QA, "max_length": self.max_length, "stride": self.stride,
                         "max_query_length": self.max_query_length, "max_answer_length": max_answer_length,
                         "n_best": n_best}

    def __call__(self, items: list[list[str]], store: Store, progress: bool = True) -> list[dict[str, Any]]:
        from tqdm.auto import tqdm

        answers: list[dict[str, Any]] = []
        with tqdm(total=len(items), desc=f"{self.model.label}", unit="question", disable=not progress,
                  leave=False) as bar:
            for start in range(0, len(items), QA_CHUNK):
                chunk = items[start : start + QA_CHUNK]
                found = self._answer(chunk)
                store(chunk, found)
                answers.extend(found)
                bar.update(len(chunk))
        return answers

    def _clip_questions(self, questions: list[str]) -> list[str]:
        """Questions cut after ``max_query_length`` tokens (at a token boundary of the text)."""
        encoding = self.model.tokenizer(questions, add_special_tokens=False, return_offsets_mapping=True)
        return [q if len(offsets) <= self.max_query_length else q[: offsets[self.max_query_length - 1][1]]
                for q, offsets in zip(questions, encoding["offset_mapping"])]

    def _answer(self, items: list[list[str]]) -> list[dict[str, Any]]:
        questions = self._clip_questions([q for q, _ in items])
        contexts = [c for _, c in items]
        encoding = self.model.tokenizer(questions, contexts, truncation="only_second", max_length=self.max_length,
                                        stride=self.stride, return_overflowing_tokens=True, return_offsets_mapping=True)
        owners = encoding["overflow_to_sample_mapping"]
        features = [_features(encoding, j) for j in range(len(owners))]
        context_offsets = [[o if s == 1 else None for o, s in zip(encoding["offset_mapping"][j], encoding.sequence_ids(j))]
                           for j in range(len(owners))]
        window = [0] * len(owners)
        for j in range(1, len(owners)):
            window[j] = window[j - 1] + 1 if owners[j] == owners[j - 1] else 0
        logits = run_batched(features, [len(f["input_ids"]) for f in features], self._logits,
                             token_budget=self.model.token_budget, max_batch=MAX_BATCH,
                             keys=[_key(items[owners[j]], window[j]) for j in range(len(owners))], progress=False)
        best: list[dict[str, Any] | None] = [None] * len(items)
        for j, (start_logits, end_logits) in enumerate(logits):
            owner = owners[j]
            candidate = self._best_span(start_logits, end_logits, context_offsets[j], contexts[owner])
            if candidate is not None and (best[owner] is None or candidate["score"] > best[owner]["score"]):
                best[owner] = candidate
        return [b or {"text": "", "score": None} for b in best]  # no valid span in any window: an empty answer

    def _logits(self, features: list[dict[str, list[int]]]) -> list[tuple[np.ndarray, np.ndarray]]:
        output = _forward(self.model, features)
        starts, ends = output.start_logits.double().cpu().numpy(), output.end_logits.double().cpu().numpy()
        return [(starts[i, : len(f["input_ids"])], ends[i, : len(f["input_ids"])]) for i, f in enumerate(features)]

    def _best_span(self, start_logits: np.ndarray, end_logits: np.ndarray, offsets: list[Any],
                   context: str) -> dict[str, Any] | None:
        """The highest-scoring valid span of one window (inside the context, end after start, not too long)."""
        starts = np.argsort(-start_logits, kind="stable")[: self.n_best]
        ends = np.argsort(-end_logits, kind="stable")[: self.n_best]
        in_context = np.array([o is not None for o in offsets])
        length = ends[None, :] - starts[:, None] + 1
        valid = in_context[starts][:, None] & in_context[ends][None, :] & (length >= 1) & (length <= self.max_answer_length)
        if not valid.any():
            return None
        scores = np.where(valid, start_logits[starts][:, None] + end_logits[ends][None, :], -np.inf)
        s, e = np.unravel_index(int(np.argmax(scores)), scores.shape)  # the first best, in (start, end) rank order
        first, last = offsets[starts[s]], offsets[ends[e]]
        return {"text": context[first[0] : last[1]], "score": float(scores[s, e])}


class TokenPredictor:
    """The model's label id for every word (read at the word's first sub-token)."""

    def __init__(self, model: EvalModel) -> None:
        self.model = model
        self.settings = {"task": TOKENS, "max_length": model.max_length, "word_label": "first sub-token"}

    def __call__(self, items: list[list[str]], store: Store, progress: bool = True) -> list[list[int]]:
        encoding = self.model.tokenizer(items, is_split_into_words=True, truncation=True, max_length=self.model.max_length)
        features = [_features(encoding, j) for j in range(len(items))]
        word_ids = [encoding.word_ids(j) for j in range(len(items))]

        def labels(features_and_words: list[tuple[dict[str, list[int]], list[int | None], int]]) -> list[list[int]]:
            ids = self._argmax([f for f, _, _ in features_and_words])
            words = []
            for predicted, (_, owners, count) in zip(ids, features_and_words):
                per_word = [-1] * count
                for position, word in enumerate(owners):
                    if word is not None and per_word[word] == -1:
                        per_word[word] = predicted[position]
                words.append(per_word)
            return words

        bundled = [(features[j], word_ids[j], len(items[j])) for j in range(len(items))]
        return run_batched(bundled, [len(f["input_ids"]) for f in features], labels,
                           token_budget=self.model.token_budget, max_batch=MAX_BATCH,
                           keys=[_key(item) for item in items], desc=f"{self.model.label}", unit="sentence",
                           progress=progress, on_batch=lambda indices, outputs: store([items[i] for i in indices], outputs))

    def _argmax(self, features: list[dict[str, list[int]]]) -> list[list[int]]:
        return _forward(self.model, features).logits.argmax(dim=-1).cpu().tolist()


def predictor_for(model: EvalModel) -> ClassifierPredictor | QAPredictor | TokenPredictor:
    """The predictor of the model's task."""
    return {CLASSIFICATION: ClassifierPredictor, QA: QAPredictor, TOKENS: TokenPredictor}[model.task](model)
