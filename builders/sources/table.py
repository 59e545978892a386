"""Generic sources: any table (CSV, TSV, JSONL, Parquet) or any Hub dataset, read with a declared layout.

``--source csv | tsv | jsonl | parquet`` reads ``--data-file`` with ``datasets``' packaged loaders
(``load_dataset("csv" | "json" | "parquet", data_files=...)``: memory-mapped Arrow, never Python lists), and
``--source hub:ORG/NAME`` loads a Hub split (``--hub-config``, ``--split``, ``--revision``) through
:mod:`noisecraft.core.hub`, which fails in seconds, in one line, when the Hub cannot be reached. Both give the
:class:`~noisecraft.sources.base.SourceData` the benchmark adapters give, and the layout the user declares
(:class:`TableLayout`) becomes the :class:`~noisecraft.core.labels.LabelLayout` of its
:class:`~noisecraft.sources.base.SourceInfo`, as a benchmark adapter declares its own: one build path serves both.

How a file is read: CSV by RFC 4180 (quoted fields may hold commas and newlines), TSV as GLUE writes it (a tab
separates fields, no quoting: a ``"`` is text), types inferred by ``datasets`` (pandas for CSV/TSV, Arrow for JSONL,
the file's own schema and ``datasets`` features for Parquet). In CSV/TSV only an empty cell is missing: ``NA`` or
``null`` stay text. A file's split is ``--split`` (default ``test``: the set a challenge set evaluates on).

The layout, checked when the source is loaded (columns, types, ids) or when a row is read (its labels), so a
problem is one line naming the file and the row (1-based, in file order):

* **class label** (``label_field``): a ClassLabel column keeps its names; text labels become a ClassLabel whose
  names are ``label_names`` in that order, or else the sorted distinct labels of the file (``datasets``'
  ``class_encode_column`` rule); integer labels take ``label_names`` when given (``-1``: no label) and stay plain
  integers otherwise. A label outside the names is an error.
* **span labels** (``span_labels``, context and answers columns): SQuAD-style answers ``{"text": [...],
  "answer_start": [...]}``, each checked against its context (``context[start:start + len(text)] == text``) and
  then moved through the edit log like SQuAD's.
* **token labels** (``token_labels``, tokens and tags columns): one tag per token, tokens non-empty without
  whitespace; text tags become a ClassLabel list whose names are ``O`` then the other tags sorted (tag 0 is
  outside any entity, which ``--protect-entities`` relies on).
* **row ids**: the ``id_field`` column (unique, no empty id) as text; without one, :func:`content_id`, the rule
  ``nc.perturb`` applies to a dataset without an ``id`` column, so seeds never depend on ``--num-proc`` or the
  batch size.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noisecraft.core import hub
from noisecraft.core.schema import FeatureSpec, arrow_type, class_label, list_of, value
from noisecraft.core.seeding import canonical_json
from noisecraft.core.text_files import text_lines
from noisecraft.errors import ConfigError, InputError
from noisecraft.sources.base import ArrowRows, SourceData, SourceInfo

if TYPE_CHECKING:
    import datasets
    import pyarrow as pa

#: ``--source`` name -> the ``datasets`` packaged loader and its options.
_NO_NA = {"keep_default_na": False, "na_values": [""]}  # only an empty cell is missing; 'NA' and 'null' are text
FORMATS: dict[str, tuple[str, dict[str, Any]]] = {
    "csv": ("csv", _NO_NA),
    "tsv": ("csv", {"sep": "\t", "quoting": csv.QUOTE_NONE, **_NO_NA}),
    "jsonl": ("json", {}),
    "parquet": ("parquet", {}),
}
HUB_PREFIX = "hub:"
#: How help and messages name the generic sources.
GENERIC_SOURCES = (*FORMATS, f"{HUB_PREFIX}ORG/NAME")
DEFAULT_SPLIT = "test"
HUB_HINT = ("build where the Hub is reachable (the split is then served from the datasets cache), or save the split as "
            "a file (Dataset.to_parquet) and build it with --source parquet --data-file")
_HUB_ID = re.compile(r"[\w.-]+/[\w.-]+")
_STRINGS = ("string", "large_string")
_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
#: The declarations of a layout: ``nc.build`` keywords and recipe keys, ``--label-field``... on the command line.
LAYOUT_KEYS = ("label_field", "label_names", "span_labels", "token_labels", "id_field", "hub_config")
#: A per-row check: ``(row, 0-based position)``; it may complete the row (a text label becomes its class index).
Check = Callable[[dict[str, Any], int], None]


def is_generic(source: str) -> bool:
    """Whether ``source`` is a table format or a ``hub:`` id, read with a declared layout."""
    return source in FORMATS or source.startswith(HUB_PREFIX)


def _option(name: str) -> str:
    """How messages name an option in Python, recipes and the CLI alike: ``label_names= / --label-names``."""
    return f"{name}= / --{name.replace('_', '-')}"


def _pair(name: str, given: str | Sequence[str] | None) -> tuple[str, str] | None:
    """``"A:B"`` or ``("A", "B")`` as a pair of column names (without ``:``, which the command line splits at)."""
    if given is None:
        return None
    pair = tuple(given.split(":")) if isinstance(given, str) else tuple(given)
    if len(pair) != 2 or not all(isinstance(p, str) and p and ":" not in p for p in pair):
        raise ConfigError(f"{_option(name)} takes two column names as A:B, got {given!r}")
    return pair  # type: ignore[return-value]


@dataclass(frozen=True)
class TableLayout:
    """What a generic source is told about its table (the text fields come with the request's ``fields``)."""

    label_field: str | None = None
    label_names: tuple[str, ...] | None = None
    #: (context column, answers column).
    span_labels: tuple[str, str] | None = None
    #: (tokens column, tags column).
    token_labels: tuple[str, str] | None = None
    id_field: str | None = None
    hub_config: str | None = None

    @classmethod
    def declare(cls, label_field: str | None = None, label_names: str | Sequence[str] | None = None,
                span_labels: str | Sequence[str] | None = None, token_labels: str | Sequence[str] | None = None,
                id_field: str | None = None, hub_config: str | None = None) -> TableLayout:
        """The layout from the CLI, recipe or Python forms: names as ``"a,b,c"`` or a list (no name holds a
        comma, which the command line splits at), pairs as ``"A:B"`` or two names."""
        names = label_names.split(",") if isinstance(label_names, str) else label_names
        if names is not None and (not names or len(set(names)) != len(names) or not all(names)
                                  or any("," in name for name in names)):
            raise ConfigError(f"{_option('label_names')} takes distinct, non-empty class names without commas, got "
                              f"{label_names!r}")
        if names is not None and label_field is None:
            raise ConfigError(f"{_option('label_names')} names the classes of {_option('label_field')}: give it too")
        return cls(label_field, tuple(names) if names is not None else None, _pair("span_labels", span_labels),
                   _pair("token_labels", token_labels), id_field, hub_config)

    def options(self) -> list[str]:
        """The ``noisecraft build`` options that declare this layout (for the regenerate command)."""
        args: list[str] = []
        for option, given in (("--label-field", self.label_field), ("--id-field", self.id_field),
                              ("--hub-config", self.hub_config)):
            args += [option, given] if given is not None else []
        if self.label_names is not None:
            args += ["--label-names", ",".join(self.label_names)]
        for option, pair in (("--span-labels", self.span_labels), ("--token-labels", self.token_labels)):
            args += [option, ":".join(pair)] if pair is not None else []
        return args

    def as_dict(self) -> dict[str, Any]:
        """The layout as the manifest keeps it (JSON: lists for tuples)."""
        return {key: list(given) if isinstance(given, tuple) else given for key, given in asdict(self).items()}


def config_stem(source: str, data_file: Path | None, layout: TableLayout) -> str:
    """What a config's default name starts with: a benchmark's name; a table's format and file name (``csv-reviews``:
    two tables of one format are two datasets); a Hub dataset's id and config."""
    if not is_generic(source):
        return source
    if data_file is not None:
        return f"{source}-{Path(data_file).stem}"
    return "-".join(part for part in (source.replace(":", "-"), layout.hub_config) if part)


def content_id(row: Mapping[str, Any], position: int) -> str:
    """The id of a row of a table without an id column: ``<position>-<digest>``, its 0-based position in the file
    (or dataset) and the first 16 hex digits of the blake2b digest of its canonical JSON (sorted keys, no spaces:
    :func:`~noisecraft.core.seeding.canonical_json`) as the challenge set stores it (a text label as its class index).
    Unique in the file, the same for any ``--num-proc`` or batch size; ``nc.perturb`` gives a dataset without an
    ``id`` column the same ids."""
    digest = hashlib.blake2b(canonical_json(row).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{position}-{digest}"


def table_info(source: str, layout: TableLayout, citation: str = "") -> SourceInfo:
    """The facts of a generic source: its name, and the label layout it was declared with."""
    hub_id = source.removeprefix(HUB_PREFIX) if source.startswith(HUB_PREFIX) else ""
    task = ("question-answering" if layout.span_labels else "token-classification" if layout.token_labels
            else "text-classification" if layout.label_field else "other")
    return SourceInfo(name=source, hub_id=hub_id, task_category=task, license="unknown", citation=citation,
                      default_split=DEFAULT_SPLIT, default_fields=(), class_label=layout.label_field,
                      span_labels=dict([layout.span_labels]) if layout.span_labels else {},
                      token_tags=layout.token_labels, pretty=hub_id or f"{source.upper()} file")


# --- reading -------------------------------------------------------------------------------------


@contextmanager
def _quiet() -> Iterator[None]:
    """No ``datasets`` error log while a table is read: the loader logs what it then raises, which is our one-line
    error (its progress bar stays, as the user set it)."""
    from datasets.utils import logging

    verbosity = logging.get_verbosity()
    logging.set_verbosity(logging.CRITICAL)
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)


def _first_bad_json_line(path: Path) -> InputError | None:
    """The first line of a JSONL file that is not a JSON object (Arrow's own message counts rows per block)."""
    for number, line in text_lines(path):
        if not line.strip():
            continue
        try:
            parsed = json.loads(line)
        except json.JSONDecodeError as exc:
            return InputError(path, f"not a JSON object: {exc.msg} (column {exc.colno})", f"line {number}")
        if not isinstance(parsed, dict):
            return InputError(path, f"not a JSON object: a JSON {type(parsed).__name__}", f"line {number}")
    return None


def read_table(source: str, path: Path) -> datasets.Dataset:
    """The rows of a CSV, TSV, JSONL or Parquet file as a memory-mapped ``datasets.Dataset``; a file the loader
    refuses is an :class:`InputError` naming it (and the line, where the format's reader says)."""
    import datasets

    builder, options = FORMATS[source]
    try:
        with _quiet():
            return datasets.load_dataset(builder, data_files=str(path), split="train", **options)
    except Exception as exc:  # datasets wraps pandas', Arrow's and its own errors in many types
        cause = exc
        while cause.__cause__ is not None:
            cause = cause.__cause__
        located = _first_bad_json_line(path) if source == "jsonl" else None
        reason = " ".join(str(cause).split()) or type(cause).__name__
        raise located or InputError(path, f"cannot be read as {source.upper()}: {reason}") from exc


def _hub_split(source: str, split: str, data_file: Path | None, revision: str | None,
               config: str | None) -> tuple[datasets.Dataset, str, str | None]:
    """A Hub split, where it was read from, and the commit its revision resolved to (``None`` offline)."""
    hub_id = source.removeprefix(HUB_PREFIX)
    if not _HUB_ID.fullmatch(hub_id):
        raise ConfigError(f"--source {source}: a Hub dataset is named hub:ORG/NAME")
    if data_file is not None:
        raise ConfigError(f"--source {source} reads the Hub; a local file is --source csv, tsv, jsonl or parquet")
    dataset = hub.load_hub_dataset(hub_id, config, split, revision, hint=HUB_HINT)
    return dataset, f"hf://datasets/{hub_id}", hub.dataset_commit(hub_id, revision)


def load_table(source: str, lang: str, split: str | None, data_file: Path | None, revision: str | None,
               layout: TableLayout) -> SourceData:
    """Rows of a generic source with their declared layout checked (see the module's docstring)."""
    split = split or DEFAULT_SPLIT
    commit = None
    if source.startswith(HUB_PREFIX):
        dataset, origin, commit = _hub_split(source, split, data_file, revision, layout.hub_config)
    else:
        if data_file is None:
            raise ConfigError(f"a {source} source reads a local file: give data_file= / --data-file (a recipe's "
                              "relative data_file is read under --data-dir)")
        if revision is not None or layout.hub_config is not None:
            raise ConfigError("revision= / --revision and hub_config= / --hub-config apply to hub: sources, not to a file")
        if not data_file.is_file():
            raise ConfigError(f"data file {data_file} does not exist or is not a file")
        dataset, origin = read_table(source, data_file), str(data_file)
    spec, check, row_id = plan_rows(dataset, layout, origin)
    info = table_info(source, layout, dataset.info.citation or "")
    return SourceData(info, lang, split, origin, ArrowRows(dataset, row_id, check), spec, revision, commit)


# --- the declared layout, checked ----------------------------------------------------------------


def _kind(feature: Mapping[str, Any]) -> str:
    """A feature as messages name it: ``string``, ``List of int64``, ``ClassLabel``, ``struct``."""
    if feature.get("_type") == "List":
        return f"List of {_kind(feature['feature'])}"
    return str(feature.get("dtype") or feature.get("_type") or "struct")


def _require(origin: str, spec: FeatureSpec, column: str, what: str, ok: Callable[[Mapping[str, Any]], bool],
             expected: str) -> Mapping[str, Any]:
    """The feature of a declared column, which must exist and have the expected kind."""
    if column not in spec:
        raise InputError(origin, f"no column {column!r} ({what}); columns: {', '.join(spec)}", "header")
    if not ok(spec[column]):
        raise InputError(origin, f"column {column!r} ({what}) holds {_kind(spec[column])}; expected {expected}", "header")
    return spec[column]


def _is_value(*dtypes: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda feature: feature.get("_type") == "Value" and feature.get("dtype") in dtypes


def _is_list(inner: Callable[[Mapping[str, Any]], bool]) -> Callable[[Mapping[str, Any]], bool]:
    return lambda feature: feature.get("_type") == "List" and inner(feature["feature"])


def _is_class_label(feature: Mapping[str, Any]) -> bool:
    return feature.get("_type") == "ClassLabel"


def _distinct(column: pa.ChunkedArray) -> list[Any]:
    """The distinct non-empty values of a column (of a list column: of its items), read by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        column = pc.list_flatten(column)
    return pc.unique(column).drop_null().to_pylist()


def _label_index(origin: str, column: str, names: Sequence[str], by_name: bool) -> Callable[[Any, int], int]:
    """A label's class index: a text label by its name, an integer in range (``-1``: no label), else an error."""
    index = {name: i for i, name in enumerate(names)}

    def find(label: Any, position: int) -> int:
        if by_name and label in index:
            return index[label]
        if not by_name and type(label) is int and -1 <= label < len(names):
            return label
        raise InputError(origin, f"label {label!r} in column {column!r} is not one of its {len(names)} classes "
                                 f"({', '.join(names)})", f"row {position + 1}")
    return find


def _class_labels(dataset: datasets.Dataset, spec: FeatureSpec, layout: TableLayout, origin: str) -> Check | None:
    """The class label column's feature (set in ``spec``) and the check that gives each row its class index."""
    column = str(layout.label_field)
    feature = _require(origin, spec, column, "--label-field", lambda f: _is_class_label(f) or _is_value(
        *_STRINGS, *_INTEGERS)(f), "text, integers or a ClassLabel")
    declared = layout.label_names
    if _is_class_label(feature):
        names = list(feature["names"])
        if declared is not None and list(declared) != names:
            raise InputError(origin, f"--label-names {','.join(declared)} differ from the class names column "
                                     f"{column!r} carries ({', '.join(names)})", "header")
    elif _is_value(*_STRINGS)(feature):
        names = list(declared) if declared is not None else sorted(_distinct(dataset.data.column(column)))
    elif declared is None:
        return None  # integers without names stay integers
    else:
        names = list(declared)
    spec[column] = class_label(names)
    find = _label_index(origin, column, names, by_name=_is_value(*_STRINGS)(feature))

    def check(row: dict[str, Any], position: int) -> None:
        row[column] = find(row[column], position)
    return check


def _answers(origin: str, context: str, answers: str) -> Check:
    """The check that every answer of a row lies in its context where its ``answer_start`` says."""
    def check(row: dict[str, Any], position: int) -> None:
        text = row[context]
        given = row[answers] or {}
        texts, starts = given.get("text") or [], given.get("answer_start") or []
        if len(texts) != len(starts) or not isinstance(text, str):
            problem = (f"{len(texts)} answer texts but {len(starts)} answer_start offsets in {answers!r}"
                       if isinstance(text, str) else f"empty context {context!r}")
            raise InputError(origin, problem, f"row {position + 1}")
        for answer, start in zip(texts, starts):
            found = text[start : start + len(answer or "")] if start is not None and start >= 0 else None
            if not answer or found != answer:
                raise InputError(origin, f"answer {answer!r} does not match its context: answer_start {start} gives "
                                         f"{found!r}", f"row {position + 1}")
    return check


def _span_labels(spec: FeatureSpec, layout: TableLayout, origin: str) -> Check:
    context, answers = layout.span_labels  # type: ignore[misc]
    _require(origin, spec, context, "--span-labels context", _is_value(*_STRINGS), "text")
    _require(origin, spec, answers, "--span-labels answers",
             lambda f: set(f) == {"text", "answer_start"} and _is_list(_is_value(*_STRINGS))(f["text"])
             and _is_list(_is_value(*_INTEGERS))(f["answer_start"]),
             "SQuAD-style answers {text: [...], answer_start: [...]}")
    return _answers(origin, context, answers)


def _token_labels(dataset: datasets.Dataset, spec: FeatureSpec, layout: TableLayout, origin: str) -> Check:
    """The tags column's feature (text tags become a ClassLabel list) and the check of one tag per token."""
    tokens, tags = layout.token_labels  # type: ignore[misc]
    _require(origin, spec, tokens, "--token-labels tokens", _is_list(_is_value(*_STRINGS)), "a list of text")
    feature = _require(origin, spec, tags, "--token-labels tags",
                       _is_list(lambda f: _is_class_label(f) or _is_value(*_STRINGS, *_INTEGERS)(f)),
                       "a list of text, integers or ClassLabel")["feature"]
    find = None
    if _is_class_label(feature):
        find = _label_index(origin, tags, feature["names"], by_name=False)
    elif _is_value(*_STRINGS)(feature):
        names = ["O", *sorted(set(_distinct(dataset.data.column(tags))) - {"O"})]
        spec[tags] = list_of(class_label(names))
        find = _label_index(origin, tags, names, by_name=True)

    def check(row: dict[str, Any], position: int) -> None:
        words, labels = row[tokens] or [], row[tags] or []
        if len(words) != len(labels):
            raise InputError(origin, f"{len(words)} tokens but {len(labels)} tags: one tag per token", f"row {position + 1}")
        bad = next((w for w in words if not w or any(ch.isspace() for ch in w)), None)
        if bad is not None or not words:
            raise InputError(origin, f"empty token or token with whitespace: {bad!r}", f"row {position + 1}")
        if find is not None:
            row[tags] = [find(label, position) for label in labels]
    return check


def _unique_ids(column: pa.ChunkedArray, name: str, origin: str) -> None:
    """Every row has its own, non-empty id (found by Arrow, without reading the column into Python)."""
    import pyarrow.compute as pc

    if column.null_count:
        row = pc.index(pc.is_null(column), True).as_py()
        raise InputError(origin, f"empty id in column {name!r}: every row needs its own id", f"row {row + 1}")
    counts = pc.value_counts(column)
    repeated = counts.filter(pc.greater(counts.field("counts"), 1))
    if len(repeated):
        same = repeated[0]["values"]
        rows = pc.indices_nonzero(pc.equal(column, same)).to_pylist()
        raise InputError(origin, f"duplicate id {same.as_py()!r} in column {name!r}: every row needs its own id",
                         f"rows {', '.join(str(r + 1) for r in rows)}")


def _row_ids(dataset: datasets.Dataset, spec: FeatureSpec, id_field: str | None,
             origin: str) -> Callable[[dict[str, Any], int], str]:
    """How each row gets its string ``id`` (set in ``spec``): the declared id column, else :func:`content_id`."""
    if id_field is None:
        if "id" in spec:
            raise InputError(origin, "the table has an 'id' column: declare it with --id-field id (or rename it); "
                                     "without an id field every row's id is derived from its content and position",
                             "header")
        spec["id"] = value("string")
        return content_id
    _require(origin, spec, id_field, "--id-field", _is_value(*_STRINGS, *_INTEGERS), "text or integers")
    if id_field != "id" and "id" in spec:
        raise InputError(origin, f"the table has an 'id' column besides --id-field {id_field}: rename one of them",
                         "header")
    _unique_ids(dataset.data.column(id_field), id_field, origin)
    spec["id"] = value("string")
    return lambda row, position: str(row[id_field])


def plan_rows(dataset: datasets.Dataset, layout: TableLayout,
              origin: str) -> tuple[FeatureSpec, Check, Callable[[dict[str, Any], int], str]]:
    """The output features of a table's rows, the check of each row against ``layout``, and its id rule."""
    spec: FeatureSpec = dataset.features.to_dict()
    checks = [_class_labels(dataset, spec, layout, origin) if layout.label_field else None,
              _span_labels(spec, layout, origin) if layout.span_labels else None,
              _token_labels(dataset, spec, layout, origin) if layout.token_labels else None]
    row_id = _row_ids(dataset, spec, layout.id_field, origin)
    for name, feature in spec.items():
        try:
            arrow_type(feature)
        except ValueError:
            raise InputError(origin, f"column {name!r} holds {_kind(feature)}, which noisecraft cannot write (it "
                                     "writes text, numbers, ClassLabel, lists and structs)", "header") from None
    active = [c for c in checks if c is not None]

    def check(row: dict[str, Any], position: int) -> None:
        for one in active:
            one(row, position)
    return spec, check, row_id


def describe(layout: TableLayout, spec: FeatureSpec) -> str:
    """The declared layout as the card states it, with the class and tag names the build resolved."""
    def names(column: str) -> str:
        feature = spec[column]
        feature = feature.get("feature", feature) if feature.get("_type") == "List" else feature
        return f" (classes: {', '.join(feature['names'])})" if _is_class_label(feature) else " (integers, no class names)"

    parts = []
    if layout.hub_config:
        parts.append(f"Hub config `{layout.hub_config}`")
    if layout.label_field:
        parts.append(f"class label `{layout.label_field}`{names(layout.label_field)}")
    if layout.span_labels:
        parts.append(f"answers `{layout.span_labels[1]}` in `{layout.span_labels[0]}` (SQuAD-style spans, moved "
                     "through the edit log and re-checked)")
    if layout.token_labels:
        parts.append(f"tokens `{layout.token_labels[0]}` tagged by `{layout.token_labels[1]}`"
                     f"{names(layout.token_labels[1])}")
    parts.append(f"ids from column `{layout.id_field}`" if layout.id_field else
                 "ids derived from each row: `<0-based position in the file>-<first 16 hex digits of the blake2b "
                 "digest of the row's canonical JSON>` (noisecraft.sources.table.content_id)")
    return "; ".join(parts)
