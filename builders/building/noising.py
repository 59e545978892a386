"""The pure heart of a build: rows of one shard -> challenge rows, with labels kept valid.

:func:`perturb_rows` depends only on the rows it is given and the :class:`NoiseJob`; every
example's randomness comes from its own id (:mod:`noisecraft.core.seeding`), so shards can be cut,
ordered and processed anywhere and the concatenated output is the same.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from noisecraft.core.edits import Edit, Noised, Span, remap_span
from noisecraft.core.labels import LabelLayout, entity_strings
from noisecraft.core.schema import FeatureSpec
from noisecraft.errors import ConfigError, InputError
from noisecraft.noise_models.base import NoiseInput, NoiseModel, PairText, model_input, prepare_steps, run_steps
from noisecraft.noise_models.record import check_seed, text_problem

TOKEN_SEPARATOR = " "
#: Rows :func:`prepare_field` reads at a time.
PREPARE_SLICE = 1000


@dataclass(frozen=True)
class NoiseJob:
    """What to do to every row of a config: model, seed, fields, and the label layout."""

    model: NoiseModel
    seed: int
    fields: tuple[str, ...]
    labels: LabelLayout
    protect_entities: bool = False
    dataset: str = "the dataset"

    def __post_init__(self) -> None:
        object.__setattr__(self, "seed", check_seed(self.seed))  # numpy integers too; rows record a plain int
        validate_fields(self.model, self.labels, self.fields, self.dataset)


def validate_fields(model: NoiseModel, labels: LabelLayout, fields: Sequence[str], dataset: str) -> None:
    """Refuse combinations that cannot keep labels valid, before any work is done."""
    if not fields:
        raise ConfigError("no field to perturb")
    repeated = sorted({name for name in fields if list(fields).count(name) > 1})
    if repeated:
        raise ConfigError(f"field {repeated[0]!r} is given more than once: give each field once")
    caps = model.capabilities
    tokens_column = labels.token_tags[0] if labels.token_tags else None
    for name in fields:
        if caps.input == "pair":
            if not labels.pair_fields:
                raise ConfigError(f"{model.noise_id} needs a text-pair task; {dataset} has a single text")
            if name != labels.pair_fields[1]:
                raise ConfigError(f"{model.noise_id} rewrites the second text of a pair: use fields "
                                  f"[{labels.pair_fields[1]}] for {dataset}")
        if caps.edit_log == "whole-field" and name in labels.span_labels:
            raise ConfigError(f"{model.noise_id} rewrites the whole '{name}' field, which would destroy the "
                              f"'{labels.span_labels[name]}' spans inside it; choose another field")
        if caps.edit_log == "whole-field" and name == tokens_column:
            raise ConfigError(f"{model.noise_id} reorders tokens, which would break their one-tag-per-token "
                              f"alignment in {dataset}; choose a token-level noise")
    if model.row_columns and len(fields) > 1:
        raise ConfigError(f"{model.noise_id} adds per-row columns ({', '.join(model.row_columns)}) for the one field it "
                          f"perturbs: give one field, not {len(fields)}")


def check_text_fields(features: FeatureSpec, fields: Sequence[str], labels: LabelLayout, dataset: str) -> None:
    """Each field must be a column of text (the token column of a token-tag task: a list of text), before any
    row is read: a label, number or nested column is refused by name. ``features`` in the JSON form of
    :mod:`noisecraft.core.schema` (``datasets.Features.to_dict()``)."""
    tokens_column = labels.token_tags[0] if labels.token_tags else None
    for name in fields:
        if name not in features:
            raise ConfigError(f"field {name!r} is not a column of {dataset}; columns: {', '.join(features)}")
        for column, role in _label_columns(labels, name):
            if column not in features:
                raise ConfigError(f"the labels name {column!r} as the {role} of field {name!r}, but it is not a column "
                                  f"of {dataset}; columns: {', '.join(features)}")
        feature = features[name]
        inner = feature.get("feature", {}) if name == tokens_column else feature
        if inner.get("dtype") not in ("string", "large_string"):
            kind = "a list of text" if name == tokens_column else "text"
            raise ConfigError(f"field {name!r} of {dataset} is not a text column ({_describe_feature(feature)}); "
                              f"a field to perturb must be {kind}")


def _label_columns(labels: LabelLayout, name: str) -> list[tuple[str, str]]:
    """The label columns noise on field ``name`` reads, each with what it is to the field."""
    columns = [(labels.span_labels[name], "span labels")] if name in labels.span_labels else []
    if labels.token_tags and name == labels.token_tags[0]:
        columns.append((labels.token_tags[1], "tags"))
    if labels.pair_fields and name in labels.pair_fields:
        columns += [(other, "pair") for other in labels.pair_fields if other != name]
    return columns


def _describe_feature(feature: Mapping[str, Any]) -> str:
    kind, dtype = feature.get("_type", "struct"), feature.get("dtype")
    return f"{kind} of {dtype}" if dtype else kind


def _check_text(value: Any, job: NoiseJob, row: Mapping[str, Any], name: str) -> Any:
    """A row's field value, checked: text (a list of text for the token column), valid Unicode."""
    where = f"row id {row['id']!r}"
    items = value if isinstance(value, list) and job.labels.token_tags and name == job.labels.token_tags[0] else [value]
    for item in items:
        problem = text_problem(item)
        if problem:
            raise InputError(job.dataset, f"field {name!r} {problem}", where)
    return value


def _token_spans(tokens: Sequence[str]) -> list[Span]:
    spans: list[Span] = []
    cursor = 0
    for token in tokens:
        spans.append((cursor, cursor + len(token)))
        cursor += len(token) + len(TOKEN_SEPARATOR)
    return spans


def _edit_record(name: str, edit: Edit) -> dict[str, Any]:
    return {"field": name, "start": edit.start, "end": edit.end, "original": edit.original,
            "replacement": edit.replacement, "kind": edit.kind}


class _Row:
    """Output row under construction; ``drop`` holds the reason when it cannot be kept."""

    __slots__ = ("out", "edits", "drop")

    def __init__(self, row: dict[str, Any]) -> None:
        self.out = dict(row)
        self.edits: list[dict[str, Any]] = []
        self.drop: str | None = None


def perturb_rows(job: NoiseJob, rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Noise ``job.fields`` of ``rows``; return kept output rows (input order) and drop reasons."""
    model = job.model
    labels = job.labels
    states = [_Row(row) for row in rows]
    tokens_column = labels.token_tags[0] if labels.token_tags else None
    for name in job.fields:
        results = _noise_field(model, field_input(job, rows, name), job.seed, name)
        for state, row, noised in zip(states, rows, results):
            if state.drop is None:
                _record(state, row, name, noised, job, tokens_column)
    kept: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    params_json = model.params_json
    for state in states:
        if state.drop is not None:
            dropped[state.drop] += 1
            continue
        state.out["noise_edits"] = state.edits
        state.out["noise_name"] = model.name
        state.out["noise_version"] = model.version
        state.out["noise_params"] = params_json
        state.out["noise_seed"] = job.seed
        kept.append(state.out)
    return kept, dropped


def field_input(job: NoiseJob, rows: Sequence[dict[str, Any]], name: str) -> NoiseInput:
    """The record the model gets for field ``name`` of ``rows``: each row's text (a pair for ``input="pair"``
    models, the joined tokens of a token-tag field), the spans to protect (answers; entity tokens when asked), the
    class labels, the pair a field of a pair task belongs to, and the streams. Made once, here, and passed whole."""
    labels = job.labels
    tokens_column = labels.token_tags[0] if labels.token_tags else None
    pair_input = job.model.capabilities.input == "pair"
    texts: list[Any] = []
    protected: list[list[Span]] = []
    for row in rows:
        if name not in row:
            raise InputError(job.dataset, f"no field {name!r}", f"row id {row.get('id')!r}")
        _check_text(row[name], job, row, name)
        if name == tokens_column:
            texts.append(TOKEN_SEPARATOR.join(row[name]))
            protected.append(_entity_spans(row, labels) if job.protect_entities else [])
        elif pair_input:
            assert labels.pair_fields is not None
            texts.append((row[labels.pair_fields[0]], row[name]))
            protected.append([])
        else:
            texts.append(row[name])
            protected.append(_answer_spans(row[labels.span_labels[name]]) if name in labels.span_labels else [])
    pairs = None
    if not pair_input and labels.pair_fields is not None and name in labels.pair_fields:
        first, second = labels.pair_fields
        pairs = [PairText(row[first], row[second], labels.pair_fields.index(name)) for row in rows]
    class_labels = [row.get(labels.class_label) for row in rows] if labels.class_label else None
    ids = [str(row["id"]) for row in rows]
    return model_input(job.model, texts, job.seed, ids, name, protected, class_labels, pairs)


def prepare_field(job: NoiseJob, rows: Iterable[dict[str, Any]], name: str, progress: bool = True) -> None:
    """Hand a model-based model (every model-based step of a chain) all inputs of field ``name`` of the split
    before the batches run (see :class:`~noisecraft.noise_models.base.Capabilities`). ``rows`` is read once, in
    slices of :data:`PREPARE_SLICE` (a streamed local file is read one more time for it): only the field's inputs
    of the split are held, not its rows."""
    stream = iter(rows)
    parts = []
    while batch := list(islice(stream, PREPARE_SLICE)):
        parts.append(field_input(job, batch, name))
    if parts:
        prepare_steps(job.model, NoiseInput.concat(parts), job.seed, name, progress)


def _noise_field(model: NoiseModel, batch: NoiseInput, seed: int, name: str) -> list[Noised]:
    """Run the model on one field of a batch; a deterministic model without a join sees each distinct row
    input once (SQuAD contexts repeat about five times)."""
    if not model.capabilities.deterministic or any(step.join() is not None for step in model.steps()):
        return run_steps(model, batch, seed, name)
    slots: dict[tuple[Any, ...], int] = {}
    first: list[int] = []
    where = []
    for i, text in enumerate(batch.texts):
        key = (text, tuple(batch.spans(i)), batch.labels[i] if batch.labels else None,
               batch.pairs[i] if batch.pairs else None)
        if key not in slots:
            slots[key] = len(first)
            first.append(i)
        where.append(slots[key])
    unique = run_steps(model, batch.take(first), seed, name)
    return [unique[k] for k in where]


def _answer_spans(answers: dict[str, list[Any]]) -> list[Span]:
    return [(s, s + len(t)) for t, s in zip(answers["text"], answers["answer_start"])]


def _entity_spans(row: dict[str, Any], labels: LabelLayout) -> list[Span]:
    assert labels.token_tags is not None
    tokens_column, tags_column = labels.token_tags
    spans = _token_spans(row[tokens_column])
    return [span for span, tag in zip(spans, row[tags_column]) if tag != 0]


def _record(state: _Row, row: dict[str, Any], name: str, noised: Noised, job: NoiseJob, tokens_column: str | None) -> None:
    """Put one field's noise into the output row, re-checking every label it carries."""
    if noised.failure is not None:
        state.drop = noised.failure
        return
    original = row[name]
    state.out[f"original_{name}"] = original
    state.edits.extend(_edit_record(name, e) for e in noised.edits)
    for column in job.model.row_columns:
        state.out[f"noise_{column}"] = (noised.columns or {}).get(column)
    if name == tokens_column:
        new_tokens = []
        for start, end in _token_spans(original):
            span = _remap_token(start, end, noised.edits)
            token = noised.text[span[0] : span[1]] if span else ""
            if not token or any(ch.isspace() for ch in token):
                state.drop = f"{job.model.noise_id} changed a token boundary"
                return
            new_tokens.append(token)
        state.out[name] = new_tokens
        labels = job.labels
        if labels.entity_strings and labels.tag_names and labels.token_tags:  # e.g. WikiANN's spans, from the new tokens
            state.out[labels.entity_strings] = entity_strings(new_tokens, row[labels.token_tags[1]], labels.tag_names)
        return
    state.out[name] = noised.text
    label_column = job.labels.span_labels.get(name)
    if label_column is None or not noised.edits:
        return
    answers = row[label_column]
    starts = []
    for text, start in zip(answers["text"], answers["answer_start"]):
        span = remap_span(start, start + len(text), noised.edits)
        if span is None or noised.text[span[0] : span[1]] != text:
            state.drop = f"answer span changed by {job.model.noise_id}"
            return
        starts.append(span[0])
    state.out[label_column] = {"text": list(answers["text"]), "answer_start": starts}


def _remap_token(start: int, end: int, edits: Sequence[Edit]) -> Span | None:
    """Noisy offsets of a token whose inside may be edited; ``None`` if an edit crosses its ends."""
    before = inside = 0
    for edit in edits:
        delta = len(edit.replacement) - (edit.end - edit.start)
        if edit.end <= start:
            before += delta
        elif edit.start >= end:
            break
        elif start <= edit.start and edit.end <= end:
            inside += delta
        else:
            return None
    return start + before, end + before + inside
