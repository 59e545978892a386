"""What an adapter returns, and the shared helpers for loading from the Hub or a local file."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from noisecraft.core import hub
from noisecraft.core.labels import LabelLayout
from noisecraft.core.schema import FeatureSpec, to_features
from noisecraft.core.text_files import text_lines
from noisecraft.errors import ConfigError, InputError

if TYPE_CHECKING:
    import datasets


@dataclass(frozen=True)
class SourceInfo:
    """Static facts about a benchmark family: where it lives, what to perturb, how to cite it."""

    name: str
    hub_id: str
    task_category: str
    license: str
    citation: str
    default_split: str
    default_fields: tuple[str, ...]
    #: Pair tasks: (first, second) text fields, for pair noise such as copy-sort.
    pair_fields: tuple[str, str] | None = None
    #: Classification tasks: the label column (for noise that depends on the label, such as an attack).
    class_label: str | None = None
    #: Text field -> column of character spans labelled inside it (SQuAD answers in the context).
    span_labels: dict[str, str] = field(default_factory=dict)
    #: Token-tag tasks: (tokens column, tags column).
    token_tags: tuple[str, str] | None = None
    #: Token-tag tasks: the column of entity strings derived from tokens and tags, and the tag names.
    entity_strings: str | None = None
    tag_names: tuple[str, ...] | None = None
    #: Languages of a multilingual source (None: English only).
    languages: tuple[str, ...] | None = None
    pretty: str = ""


    @property
    def labels(self) -> LabelLayout:
        """Where this benchmark's labels live."""
        return LabelLayout(span_labels=self.span_labels, token_tags=self.token_tags, pair_fields=self.pair_fields,
                           class_label=self.class_label, entity_strings=self.entity_strings, tag_names=self.tag_names)


class ArrowRows(Sequence[dict[str, Any]]):
    """Rows of a memory-mapped ``datasets.Dataset`` read on demand, each given its stable ``id``.

    A build reads it slice by slice (:meth:`__iter__`), so a Hub split is never held as Python objects all at once.
    ``check`` (a generic table's declared layout) sees each row first, with its 0-based position, and may complete
    it (a text label becomes its class index) or raise the error that names the row; ``row_id`` then gives the id.
    """

    def __init__(self, dataset: datasets.Dataset, row_id: Callable[[dict[str, Any], int], str],
                 check: Callable[[dict[str, Any], int], None] | None = None) -> None:
        self.dataset = dataset
        self.row_id = row_id
        self.check = check

    def __len__(self) -> int:
        return self.dataset.num_rows

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, int):
            return self[index : index + 1][0] if index >= 0 else self[len(self) + index]
        start, stop, step = index.indices(len(self))
        if step != 1:
            raise ValueError("ArrowRows slices are contiguous")
        columns = self.dataset[start:stop]
        names = list(columns)
        rows = [dict(zip(names, values)) for values in zip(*(columns[n] for n in names))]
        for position, row in enumerate(rows, start=start):
            if self.check is not None:
                self.check(row, position)
            row["id"] = self.row_id(row, position)
        return rows

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Every row, read a slice of :data:`ARROW_SLICE` rows at a time (not one Arrow read per row)."""
        for start in range(0, len(self), ARROW_SLICE):
            yield from self[start : start + ARROW_SLICE]


#: Rows an :class:`ArrowRows` iteration reads from Arrow at once.
ARROW_SLICE = 1000
_END = object()


class FileRows(Iterable[dict[str, Any]]):
    """The rows of a local file in its original release format, read as they are asked for: a build streams them
    batch by batch (memory bounded by the batches in flight, plus what the format itself must hold: a SQuAD file
    is one JSON document, parsed whole; a TSV or WikiANN file holds one line). Each row is checked when it is
    read, so an error names the file and the row's line or place, as a whole-file read did.

    ``read()`` gives the rows afresh from the file's start (a generator, or a list). The first row is read when
    this object is made, so a file that is wrong from its start (missing, a wrong header, no rows) is an error when
    the source is loaded; every later iteration (a model's first pass over the split's inputs, then the batches)
    reads the file again. There is no ``len``: counting would read the file; ``list(rows)`` holds every row.
    :attr:`count` is the number of rows once an iteration has read the file to its end (a model's first pass), so
    that the build's progress bar has a total when it can be had for free."""

    def __init__(self, read: Callable[[], Iterable[dict[str, Any]]]) -> None:
        self._read = read
        started = iter(read())
        self._started: tuple[Any, Iterator[dict[str, Any]]] | None = (next(started, _END), started)
        self.count: int | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._started is None:
            return self._counted(iter(self._read()))
        (first, rest), self._started = self._started, None
        return iter(()) if first is _END else self._counted(chain((first,), rest))

    def _counted(self, rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        """``rows``, setting :attr:`count` when they run out."""
        count = 0
        for row in rows:
            count += 1
            yield row
        self.count = count


def row_batches(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in lists of ``size`` (the last may be shorter), in order, read as the batches are asked for."""
    stream = iter(rows)
    while batch := list(islice(stream, size)):
        yield batch


@dataclass
class SourceData:
    """Loaded rows (each with a stable ``id``) and their columns' types.

    ``rows`` is iterable, in source order, any number of times: a list (sources built in memory), an
    :class:`ArrowRows` (a Hub split, memory-mapped) or a :class:`FileRows` (a local file, streamed; it has no
    ``len``). ``feature_spec`` is the columns' ``datasets`` features in their JSON form (:mod:`noisecraft.core.schema`:
    a build needs no ``datasets`` import), :attr:`features` the ``datasets.Features``. ``revision``/``commit``
    say which Hub revision was asked for and which commit it resolved to (``None`` for local files, whose content
    is pinned by the rows digest of the manifest).
    """

    info: SourceInfo
    lang: str
    split: str
    origin: str
    rows: Iterable[dict[str, Any]]
    feature_spec: FeatureSpec
    revision: str | None = None
    commit: str | None = None

    @property
    def features(self) -> datasets.Features:
        """The ``datasets.Features`` of the rows (e.g. for ``datasets.Dataset.from_list(list(data.rows), features=...)``)."""
        return to_features(self.feature_spec)


class SourceAdapter:
    """One benchmark family: its facts, its features, how to read its original release file, and
    how its Hub copy is laid out. Adding a source is one module with one subclass, registered in
    :mod:`noisecraft.sources.registry`."""

    info: SourceInfo

    def feature_spec(self) -> FeatureSpec:
        """The Hub features (in the JSON form of :mod:`noisecraft.core.schema`), plus the stable string ``id``."""
        raise NotImplementedError

    def read_file(self, path: Path, lang: str, split: str) -> Iterable[dict[str, Any]]:
        """Rows of a local file in the original release format (each with ``id``), checked, in file order: a
        generator for the formats that can be read as a stream (see :class:`FileRows`), called again for every
        pass over the rows.

        ``split`` is the split the file stands for: a labelled split must have its labels (only a
        test split may come without), so a missing or renamed label column is an error, not -1s.
        """
        raise NotImplementedError

    def hub_config(self, lang: str) -> str | None:
        """The Hub config of a language."""
        return None

    def hub_row_id(self, row: dict[str, Any], position: int) -> str:
        """The stable id of a Hub row (default: its position in the split)."""
        return str(position)

    def load(self, lang: str, split: str | None = None, data_file: Path | None = None,
             revision: str | None = None) -> SourceData:
        """Rows of a split, from ``data_file`` (original format) or the Hub at ``revision``."""
        check_language(self.info, lang)
        split = split or self.info.default_split
        if data_file is not None:
            if revision is not None:
                raise ConfigError("revision= / --revision pins a Hub dataset; it does not apply to a local data file")
            if not data_file.is_file():
                raise ConfigError(f"data file {data_file} does not exist or is not a file")
            rows = FileRows(partial(self.read_file, data_file, lang, split))
            return SourceData(self.info, lang, split, str(data_file), rows, self.feature_spec())
        # through noisecraft.core.hub: an unreachable Hub is a clear error in about a second, not ~25 s of retries;
        # the commit is None when the Hub cannot be asked (the manifest then relies on its rows digest)
        dataset = hub.load_hub_dataset(self.info.hub_id, self.hub_config(lang), split, revision)
        commit = hub.dataset_commit(self.info.hub_id, revision)
        columns = self.feature_spec()
        missing = [c for c in columns if c != "id" and c not in dataset.column_names]
        if missing:
            raise ConfigError(f"{self.info.hub_id} split {split!r} lacks column(s) {', '.join(missing)}; "
                              f"it has {', '.join(dataset.column_names)}")
        dataset = dataset.select_columns([c for c in columns if c in dataset.column_names])
        return SourceData(self.info, lang, split, f"hf://datasets/{self.info.hub_id}", ArrowRows(dataset, self.hub_row_id),
                          columns, revision, commit)


def check_language(info: SourceInfo, lang: str) -> None:
    """Multilingual sources need a language they have; English-only sources take only 'en'."""
    allowed = info.languages or ("en",)
    if lang not in allowed:
        raise ConfigError(f"{info.name} has no language {lang!r}; available: {', '.join(allowed)}")


# --- local files: read by the rules of their format ----------------------------------------------

class GlueTsv(csv.Dialect):
    """GLUE's convention, as its processors and the Hub loader read the files (``csv`` with a tab
    delimiter and ``QUOTE_NONE``): a ``"`` or ``\\`` is text, so a record is exactly one line."""

    delimiter = "\t"
    quoting = csv.QUOTE_NONE
    quotechar = None
    escapechar = None
    doublequote = False
    skipinitialspace = False
    lineterminator = "\n"
    strict = True


def _tsv_error(path: Path, line: int, exc: csv.Error) -> InputError:
    if "new-line" in str(exc):
        return InputError(path, "a carriage return (CR) inside the row: only LF or CRLF end a row", f"line {line}")
    return InputError(path, f"not a TSV row: {exc}", f"line {line}")


def tsv_records(path: Path) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of every non-empty line of a TSV file, parsed by Python's ``csv``
    under GLUE's convention (:class:`GlueTsv`), streamed over :func:`text_lines`. Without quoting a
    record is exactly one line, so the reader's ``line_num`` is the line number in the file."""
    reader = csv.reader((text for _, text in text_lines(path)), GlueTsv)
    try:
        for fields in reader:
            if fields:
                yield reader.line_num, fields
    except csv.Error as exc:
        raise _tsv_error(path, reader.line_num, exc) from None


def check_tsv_header(path: Path, header: list[str], required: tuple[str, ...]) -> None:
    """A header names each column once and has every ``required`` one (else rows would be misread)."""
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise InputError(path, f"wrong header: column(s) {', '.join(repeated)} appear more than once", "line 1")
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(
            path, f"wrong header: missing column(s) {', '.join(missing)}; found {', '.join(header)}", "line 1"
        )


def tsv_header(path: Path, records: Iterator[tuple[int, list[str]]], required: tuple[str, ...]) -> list[str]:
    """The header (first line) of a TSV stream, checked for the ``required`` columns and repeats."""
    first = next(records, None)
    if first is None:
        raise InputError(path, "empty file: expected a header line")
    line, header = first
    if line != 1:
        raise InputError(path, "empty first line: expected a header line", "line 1")
    check_tsv_header(path, header, required)
    return header


def tsv_fields(path: Path, line: int, header: list[str], values: list[str]) -> dict[str, str]:
    """One record as ``{column: value}``; fewer or more fields than the header is an error (more
    means a tab inside a sentence: guessing which tab would silently shift text between columns)."""
    if len(values) != len(header):
        extra = " (a tab inside a text?)" if len(values) > len(header) else ""
        raise InputError(path, f"{len(values)} tab-separated fields, the header has {len(header)}{extra}", f"line {line}")
    return dict(zip(header, values))


def tsv_rows(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows of a GLUE/XNLI-style TSV (tab-separated, no quoting, as the original processors read it).

    Yields ``(line number, row)``, streamed; empty lines are skipped. Raises when the header lacks a
    required column, or a row has fewer or more fields than the header.
    """
    records = tsv_records(path)
    header = tsv_header(path, records, required)
    for line, values in records:
        yield line, tsv_fields(path, line, header, values)


def check_string(path: Path | str, where: str, column: str, value: Any) -> str:
    """A string field (possibly empty) that can be written: a lone surrogate (``"\\ud800"`` in JSON)
    passes ``json.loads`` but cannot be encoded as UTF-8, so the parquet write would fail later."""
    if not isinstance(value, str):
        raise InputError(path, f"'{column}' must be a string, got {type(value).__name__}", where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(path, f"'{column}' holds a lone surrogate U+{ord(value[exc.start]):04X} at character "
                               f"{exc.start} (half of a UTF-16 pair, e.g. a JSON escape): not valid text", where) from None
    return value


def require_text(path: Path | str, where: str, column: str, value: Any) -> str:
    """A text field must be a non-empty, writable string: noise and statistics are undefined otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, f"empty or missing '{column}'", where)
    return check_string(path, where, column, value)


def is_test_split(split: str) -> bool:
    """Test splits (``test``, ``test_matched``...) are the only ones that may come without labels."""
    return split == "test" or split.startswith("test_")
