"""Build configs of a challenge repo: load a source, noise its fields, write parquet, record stats.

The rows of a split are cut into batches; each batch goes through :func:`process_batch` (noise,
Arrow conversion, statistics from sufficient sums, row digests) in this process or in ``num_proc``
worker processes, at most a few batches in flight, so memory is bounded by the batch, not the split.
Results are written in source order into parquet row groups of a fixed size, so the bytes are the
same for any ``num_proc`` and batch size, and a split larger than :data:`SHARD_ROWS` is written as
several shards.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path
from typing import Any

from noisecraft.building.collector import long_lived
from noisecraft.building.config_request import ConfigRequest
from noisecraft.building.executors import Executor, RayExecutor, check_engine, make_executor
from noisecraft.building.noising import NoiseJob, check_text_fields, perturb_rows, prepare_field
from noisecraft.building.workers import LocalExecutor
from noisecraft.core.schema import FeatureSpec, arrow_schema, class_names, list_of, value
from noisecraft.core.stats import ConfigStats
from noisecraft.dataset.repo import DatasetRepo, check_name, valid_config_name
from noisecraft.errors import ConfigError, InputError
from noisecraft.noise_models.base import NoiseModel
from noisecraft.noise_models.record import text_problem
from noisecraft.noise_models.registry import format_noise, outside_packages, parse_noise
from noisecraft.runtime.loading import file_sha256, folder_digest
from noisecraft.runtime.offload import running_chunks_with
from noisecraft.sources.base import SourceData, row_batches
from noisecraft.sources.registry import load_source
from noisecraft.sources.table import config_stem, describe, is_generic
from noisecraft.version import DEFAULT_DATASET_VERSION

#: Rows per parquet row group, and per shard file (multiples of it keep the layout batch-independent).
ROW_GROUP_ROWS = 10_000
SHARD_ROWS = 200_000
#: Example rows shown in the card.
EXAMPLES = 3
#: What ``DATA`` in a card's regenerate command stands for when the build was given a data root.
DATA_ROOT = "the folder of original release files the build read (its `--data-dir`)"


@dataclass(frozen=True)
class BuiltConfig:
    """What a build produced, for the console summary."""

    name: str
    split: str
    paths: tuple[Path, ...]
    stats: dict[str, Any]
    warnings: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        """The parquet file of a single-shard split."""
        if len(self.paths) != 1:
            raise ValueError(f"{self.name} has {len(self.paths)} shards")
        return self.paths[0]


def output_features(features: FeatureSpec, fields: Sequence[str], model: NoiseModel | None = None) -> FeatureSpec:
    """Source features plus ``original_<field>``, the edit log, the noise provenance columns and the
    per-row columns the model declares (``noise_<name>``), in the JSON form of :mod:`noisecraft.core.schema`."""
    columns = dict(features)
    for name in fields:
        columns[f"original_{name}"] = features[name]
    columns["noise_edits"] = list_of({
        "field": value("string"),
        "start": value("int32"),
        "end": value("int32"),
        "original": value("string"),
        "replacement": value("string"),
        "kind": value("string"),
    })
    columns["noise_name"] = value("string")
    columns["noise_version"] = value("int32")
    columns["noise_params"] = value("string")
    columns["noise_seed"] = value("int64")
    for name, dtype in (model.row_columns if model is not None else {}).items():
        columns[f"noise_{name}"] = value(dtype)
    return columns


def summarise_columns(table: Any, names: Sequence[str], into: dict[str, Counter[Any]]) -> None:
    """Add a batch's per-row model columns to running summaries: value counts of text columns, ``sum``
    and ``rows`` of numeric ones (mergeable, so a split is never held for its statistics)."""
    for name in names:
        values = [v for v in table.column(f"noise_{name}").to_pylist() if v is not None]
        summary = into.setdefault(name, Counter())
        if values and isinstance(values[0], str):
            summary.update(values)
        else:
            summary["sum"] += sum(values)
            summary["rows"] += len(values)


def resolve_model(noise: NoiseModel | str, lang: str, data_dir: Path | None = None) -> NoiseModel:
    """The model of a request: a text form is parsed for the build's language, its relative file parameters read
    under ``data_dir`` (as a recipe's are); a model object must have been made for that language when its output
    depends on it."""
    if isinstance(noise, str):
        return parse_noise(noise, lang, data_dir)
    for step in noise.steps():
        if step.uses_lang() and step.lang != lang:
            raise ConfigError(f"{step.noise_id} was made for lang={step.lang!r} but the build is in {lang!r}: "
                              f"make it with lang={lang!r} (or pass its text form, which takes the build's language)")
    return noise


def default_config_name(source: str, lang: str, model: NoiseModel, seed: int) -> str:
    """``<source>-<lang>-<noise>[-<non-default params>][-seed<N>]``, e.g. ``xquad-de-keyboard``,
    ``xquad-en-keyboard-coles`` or ``glue-sst2-en-grammar-nltkdata-3f9c0a1e`` (a file or folder parameter by its
    content digest, see :meth:`NoiseModel.name_part`): unique per spec, readable for the common ones, and always
    valid for ``datasets`` (:func:`~noisecraft.dataset.repo.valid_config_name` shortens a long one with a digest)."""
    name = f"{source.replace('/', '-')}-{lang}-{model.name_part()}"
    return valid_config_name(name if seed == 0 else f"{name}-seed{seed}")


def held_config_name(repo: DatasetRepo, spec: dict[str, Any]) -> str | None:
    """The config of ``repo`` that a build of ``spec`` without a config name rebuilds, if any: one built with the
    same spec; else one with the same output (the same digests; files given by other paths); else one of the same
    request (the same paths; files of other contents). So a folder whose configs were named by an older rule (a
    file parameter by its folder's name) is rebuilt in place, never given a second copy under today's name;
    :meth:`~noisecraft.dataset.repo.DatasetRepo.check_config` then refuses a different spec unless overwriting."""
    def output(value: dict[str, Any]) -> dict[str, Any]:
        return {key: item for key, item in value.items() if key not in ("params", "noise_spec")}

    configs = repo.manifest["configs"]
    for same in (lambda held: held == spec, lambda held: output(held) == output(spec),
                 lambda held: _without_digests(held) == _without_digests(spec)):
        for name, entry in configs.items():
            if same(entry["spec"]):
                return str(name)
    return None


def _without_digests(value: Any) -> Any:
    """``value`` without its content digests (keys ``digest`` and ``*_digest``, at any depth)."""
    if isinstance(value, dict):
        return {k: _without_digests(v) for k, v in value.items() if k != "digest" and not k.endswith("_digest")}
    if isinstance(value, list):
        return [_without_digests(v) for v in value]
    return value


# --- one batch, in any process ----------------------------------------------------------------


@dataclass
class BatchResult:
    """What a worker returns for one batch: Arrow rows, statistics, examples, and row digests."""

    table: Any
    stats: ConfigStats
    examples: list[dict[str, Any]]
    digests: bytes


def _empty(value: Any) -> bool:
    return not value if isinstance(value, list) else not isinstance(value, str) or not value.strip()


def process_batch(job: NoiseJob, schema: Any, origin: str, start: int, rows: Sequence[dict[str, Any]]) -> BatchResult:
    """Noise one batch (rows ``start``.. of the split) and turn it into output: a pure function."""
    import pyarrow as pa

    from noisecraft.core.seeding import canonical_json

    for offset, row in enumerate(rows):
        for name in job.fields:
            if _empty(row[name]):
                raise InputError(origin, f"empty '{name}' (nothing to perturb)", f"row {start + offset + 1} (id {row['id']!r})")
    try:
        digests = b"".join(hashlib.blake2b(canonical_json(row).encode("utf-8"), digest_size=16).digest() for row in rows)
    except UnicodeEncodeError:  # a lone surrogate in a column that is not noised (fields are checked by the noise)
        raise _unwritable(origin, start, rows) from None
    kept, dropped = perturb_rows(job, rows)
    stats = ConfigStats.empty(job.fields, per_word=job.model.capabilities.edit_log != "whole-field",
                              normalised=job.model.capabilities.model_based)
    stats.add(len(rows), kept, dropped)
    examples = []
    for row in kept:
        if row["noise_edits"] and len(examples) < EXAMPLES:
            name = row["noise_edits"][0]["field"]
            examples.append({"id": row["id"], "field": name, "before": row[f"original_{name}"], "after": row[name]})
    try:
        table = pa.Table.from_pylist(kept, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
        raise InputError(origin, f"a value does not fit its column type: {exc}", f"rows {start + 1}-{start + len(rows)}") from exc
    return BatchResult(table, stats, examples, digests)


def _unwritable(origin: str, start: int, rows: Sequence[dict[str, Any]]) -> InputError:
    """The error naming the first row and column of ``rows`` holding a value UTF-8 (so Arrow) cannot write."""
    from noisecraft.core.seeding import canonical_json

    for offset, row in enumerate(rows):
        for column, cell in row.items():
            try:
                canonical_json(cell).encode("utf-8")
            except UnicodeEncodeError:
                problem = text_problem(cell) if isinstance(cell, str) else "holds a lone surrogate (not valid Unicode)"
                return InputError(origin, f"'{column}' {problem}", f"row {start + offset + 1} (id {row.get('id')!r})")
    return InputError(origin, "a value is not valid Unicode", f"rows {start + 1}-{start + len(rows)}")


def _numbered(rows: Iterable[dict[str, Any]], batch_size: int) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """``(start, rows)`` of each batch: its rows and the position of its first row in the split."""
    start = 0
    for batch in row_batches(rows, batch_size):
        yield start, batch
        start += len(batch)


def _process_item(item: tuple[NoiseJob, Any, str, int, Sequence[dict[str, Any]]]) -> BatchResult:
    """:func:`process_batch` on one ``(job, schema, origin, start, rows)`` item of the worker pool."""
    return process_batch(*item)


def run_batches(job: NoiseJob, data: SourceData, schema: Any, num_proc: int, batch_size: int,
                progress: bool = True, desc: str = "", pool: Executor | None = None) -> Iterator[BatchResult]:
    """Results of every batch, in source order, as tables of the Arrow ``schema``. The rows are read as the
    batches are handed out (a local file is streamed: its reading overlaps the workers' noise). When the split has
    a second batch they run on the build's executor (``pool``: a :class:`~noisecraft.building.workers.LocalExecutor` of
    ``num_proc`` processes, made for this call when not given, or a :class:`~noisecraft.building.executors.RayExecutor`),
    a bounded window of batches in flight (memory stays bounded by the batch)."""
    from tqdm.auto import tqdm

    batches = _numbered(data.rows, batch_size)
    head = list(islice(batches, 2))  # a split of one batch runs here; a second one is worth the workers
    parallel = len(head) > 1 and (pool.parallel if pool is not None else num_proc > 1)
    workers: Executor = pool if parallel and pool is not None else LocalExecutor(num_proc if parallel else 1)
    seen: set[str] = set()

    def items() -> Iterator[tuple[NoiseJob, Any, str, int, Sequence[dict[str, Any]]]]:
        for start, rows in chain(head, batches):
            for offset, row in enumerate(rows):
                if row["id"] in seen:
                    raise InputError(data.origin, f"duplicate id {row['id']!r}: every row needs its own random stream",
                                     f"row {start + offset + 1}")
                seen.add(row["id"])
            yield job, schema, data.origin, start, rows

    # a streamed file is not counted ahead: its count is known once a model's first pass has read it
    total = len(data.rows) if isinstance(data.rows, Sized) else getattr(data.rows, "count", None)
    bar = tqdm(total=total, desc=desc, unit="row", disable=not progress)  # left drawn: the final count
    try:
        for result in workers.imap(_process_item, items()):
            bar.update(result.stats.rows_in)
            yield result
    finally:
        bar.close()
        if workers is not pool:
            workers.close()


# --- a whole config ---------------------------------------------------------------------------


def data_location(request: ConfigRequest) -> tuple[str, str, Path] | None:
    """Where the build's local data file lies, as the card names it: ``(path under DATA, what DATA stands for, the
    folder DATA stood for in this build)``.

    Under the data root the build was given (``--data-dir``) when the file is in it; else the path as the user gave
    it, relative to the folder the build ran in (an absolute path inside that folder is made relative to it); a file
    elsewhere by its name, under the folder that holds it. Never an absolute local path: cards are shared."""
    if request.data_file is None:
        return None
    path = Path(request.data_file)
    if request.data_dir is not None:
        try:
            return path.relative_to(request.data_dir).as_posix(), DATA_ROOT, request.data_dir
        except ValueError:
            pass  # an absolute file outside the data root: as if no root was given
    here = "the folder the build was run in"
    if not path.is_absolute():
        return path.as_posix(), here, Path.cwd()
    try:
        return path.relative_to(Path.cwd()).as_posix(), here, Path.cwd()
    except ValueError:
        return path.name, f"the folder that holds `{path.name}`", path.parent


def command_noise(model: NoiseModel, root: Path | None) -> tuple[str, str]:
    """The noise as the regenerate command prints it, and the card's sentence on the local files it names.

    A file or folder parameter is printed relative to ``root`` (the folder ``DATA`` stood for, under which
    ``--data-dir`` reads it again) when inside it; without a ``DATA``, relative to the folder the build ran in when
    inside it (the command then runs from a folder that holds it); else by its name, to be placed there. A value
    naming no local file (a Hub id, a built-in layout) is printed as it is. Never an absolute local path."""
    base = (root if root is not None else Path.cwd()).resolve()
    named: list[str] = []
    placed: list[str] = []

    def where(value: str) -> str:
        path = Path(value).expanduser()
        if not path.is_absolute() and not path.exists():
            return value
        try:
            shown = path.resolve().relative_to(base).as_posix()
        except ValueError:
            shown = path.name
            placed.append(shown)
        named.append(shown)
        return shown

    text = format_noise(model, shareable=True, where=where)
    files = ", ".join(f"`{name}`" for name in dict.fromkeys(placed if root is not None else named))
    if not files:
        return text, ""
    if root is not None:
        return text, f"The noise names {files} by file name: place {'them' if ', ' in files else 'it'} in `DATA` too."
    return text, f"Run it from a folder that holds {files} (the noise reads it from there)."


def _command(request: ConfigRequest, location: tuple[str, str, Path] | None, model: NoiseModel,
             fields: Sequence[str], name: str, split: str, repo: DatasetRepo) -> tuple[str, str]:
    """The ``noisecraft build`` command that regenerates this config, runnable as printed from any folder once
    ``DATA`` (see :func:`data_location`) and ``OUT`` are replaced (parsed back and run by the tests), and what the
    card says of the noise's local files (:func:`command_noise`); ``location`` is :func:`data_location`'s."""
    noise, files_note = command_noise(model, location[2] if location is not None else None)
    args = ["noisecraft", "build", "--source", request.source, "--lang", request.lang, "--split", split,
            "--noise", noise, "--seed", str(request.seed), "--fields", *fields, *request.layout.options()]
    if request.protect_entities:
        args.append("--protect-entities")
    if location is not None:
        args += ["--data-dir", "DATA", "--data-file", location[0]]
    if request.revision is not None:
        args += ["--revision", request.revision]
    args += ["--config-name", name, "--dataset-version", repo.manifest["version"], "--out", "OUT"]
    return shlex.join(args), files_note


def check_sizes(num_proc: int, batch_size: int) -> None:
    """Refuse a worker count or batch size below 1 (one message for the CLI and Python)."""
    if num_proc < 1 or batch_size < 1:
        raise ConfigError("num_proc and batch_size must be at least 1")


@dataclass(frozen=True)
class ConfigPlan:
    """The plan of one config (the first stage): everything decided before a row is noised. The source is
    resolved and opened (its rows not yet read), the model bound to the source's class names, the fields, the
    config's name and spec checked against what the folder holds, and the output schema."""

    request: ConfigRequest
    data: SourceData
    job: NoiseJob
    name: str
    spec: dict[str, Any]
    schema: Any


@dataclass
class WrittenConfig:
    """The read, noise, measure and write stages, run as one stream over the batches: the parquet paths written
    and what was measured on the way (statistics, example rows, the digest of the input rows, per-row columns)."""

    stats: ConfigStats
    paths: tuple[Path, ...] = ()
    examples: list[dict[str, Any]] = field(default_factory=list)
    digest: Any = field(default_factory=lambda: hashlib.blake2b(digest_size=16))
    columns: dict[str, Counter[Any]] = field(default_factory=dict)


def build_config(repo: DatasetRepo, request: ConfigRequest, *, num_proc: int = 1, batch_size: int = 1000,
                 overwrite: bool = False, progress: bool = True, pool: Executor | None = None) -> BuiltConfig:
    """Build one config into ``repo`` and record it in the manifest (the card is rendered by the caller), in
    stages that each take the previous one's output: :func:`plan_config`, :func:`write_config` (read, noise,
    measure, write), :func:`describe_config`. ``pool`` is the build's executor (reused across its configs), a
    worker pool made for this config when not given."""
    check_sizes(num_proc, batch_size)
    plan = plan_config(repo, request, overwrite)
    written = write_config(repo, plan, num_proc, batch_size, progress, pool)
    entry = describe_config(repo, plan, written)
    repo.record_config(plan.name, entry)
    return BuiltConfig(plan.name, plan.data.split, written.paths, entry["stats"], tuple(entry["warnings"]))


def plan_config(repo: DatasetRepo, request: ConfigRequest, overwrite: bool) -> ConfigPlan:
    """Resolve the source, the model, the fields, the config's name and spec, before any work is done."""
    if request.split is not None:
        check_name("split", request.split)  # before any work: datasets would not load the folder
    model = resolve_model(request.noise, request.lang, request.data_dir)
    data = load_source(request.source, request.lang, request.split, request.data_file, request.revision, request.layout)
    info = data.info
    fields = request.fields
    if fields is None:
        pair = model.capabilities.input == "pair" and info.pair_fields
        fields = (info.pair_fields[1],) if pair else info.default_fields  # type: ignore[index]
    missing = [f for f in fields if f not in data.feature_spec]
    if missing:
        raise ConfigError(f"field {missing[0]!r} is not a column of {info.name} ({data.origin}); "
                          f"columns: {', '.join(data.feature_spec)}")
    names = class_names(data.feature_spec, info.class_label)
    if names:
        model = model.for_labels(names)
    elif info.class_label is None:
        model = model.without_labels(f"{info.name} ({data.origin})")
    job = NoiseJob(model, request.seed, tuple(fields), info.labels, request.protect_entities, info.name)
    check_text_fields(data.feature_spec, job.fields, info.labels, info.name)
    spec = _config_spec(request, data, job)
    name = check_name("config", request.config_name or held_config_name(repo, spec) or default_config_name(
        config_stem(request.source, request.data_file, request.layout), request.lang, model, request.seed))
    repo.check_config(name, spec, overwrite)
    schema = arrow_schema(output_features(data.feature_spec, job.fields, model))
    return ConfigPlan(request, data, job, name, spec, schema)


def write_config(repo: DatasetRepo, plan: ConfigPlan, num_proc: int, batch_size: int, progress: bool,
                 pool: Executor | None) -> WrittenConfig:
    """Read the split, noise it batch by batch (a model-based model sees the whole split first), measure each
    batch and write its rows; a split with no row kept is refused before anything is committed."""
    model, data = plan.job.model, plan.data
    written = WrittenConfig(ConfigStats.empty(plan.job.fields, per_word=model.capabilities.edit_log != "whole-field",
                                              normalised=model.capabilities.model_based))

    def tables() -> Iterator[Any]:
        for result in run_batches(plan.job, data, plan.schema, num_proc, batch_size, progress, desc=plan.name, pool=pool):
            written.stats.merge(result.stats)
            written.examples.extend(result.examples[: EXAMPLES - len(written.examples)])
            written.digest.update(result.digests)
            summarise_columns(result.table, list(model.row_columns), written.columns)
            yield result.table

    with long_lived():  # the modules imported and the source read so far stay out of the collector's walks
        if model.capabilities.model_based:  # every input of the split through the model at once (see Capabilities)
            # on Ray, a model computes its missing outputs on the executor's model actors and stores them in the cache here
            with running_chunks_with(pool.map_chunks if isinstance(pool, RayExecutor) else None):
                for field_name in plan.job.fields:
                    prepare_field(plan.job, data.rows, field_name, progress)
        written.paths = tuple(repo.write_split(plan.name, data.split, tables(), plan.schema, ROW_GROUP_ROWS, SHARD_ROWS,
                                               check=lambda: _check_not_empty(written.stats, data.origin)))
    return written


def describe_config(repo: DatasetRepo, plan: ConfigPlan, written: WrittenConfig) -> dict[str, Any]:
    """The config's manifest entry: its spec, input identity, statistics, warnings, provenance, examples, and what
    its card says (:func:`card_entry`)."""
    model, request = plan.job.model, plan.request
    stats = written.stats.to_dict()
    if written.columns:
        stats["columns"] = {name: dict(sorted(counts.items())) for name, counts in written.columns.items()}
    file = _file_identity(request.data_file)
    location = data_location(request)
    if file is not None and location is not None:
        file["path"] = location[0]  # under the data root the card's DATA names
    origin = f"{file['name']} (sha256 {file['sha256'][:16]}...)" if file else plan.data.origin  # no local paths in cards
    provenance = model.provenance()
    if outside := outside_packages(model):
        provenance = {**provenance, "defined_by": outside}
    return {
        "spec": plan.spec,
        "origin": origin,
        "input": {"rows": stats["rows_in"], "rows_digest": written.digest.hexdigest(), "hub_commit": plan.data.commit,
                  "file": file},
        "stats": stats,
        "warnings": [_shareable(warning) for step in model.steps() for warning in step.build_warnings(stats)],
        "provenance": provenance,
        "examples": written.examples,
        "card": card_entry(repo, plan, stats, origin, location, provenance),
    }


def card_entry(repo: DatasetRepo, plan: ConfigPlan, stats: dict[str, Any], origin: str,
               location: tuple[str, str, Path] | None, provenance: dict[str, Any] | None) -> dict[str, Any]:
    """What the card says of the config, kept in the manifest so that the card is rendered from the manifest alone
    (:mod:`noisecraft.dataset.card`): a config keeps the text of the model version and toolkit that built it, and a
    reader of the folder needs neither to render or check it."""
    model, request, info = plan.job.model, plan.request, plan.data.info
    command, files_note = _command(request, location, model, plan.job.fields, plan.name, plan.data.split, repo)
    return {
        "source_pretty": info.pretty, "hub_id": info.hub_id, "license": info.license,
        "task_category": info.task_category, "origin": origin, "noise_id": model.noise_id,
        "noise_name": model.name, "params_json": model.params_json, "description": _shareable(model.describe()),
        "summary": model.summary(stats),
        "provenance_json": json.dumps(provenance, sort_keys=True, ensure_ascii=False) if provenance else "",
        "labels_kept": model.capabilities.edit_log != "whole-field",
        "param_rows": _param_rows(model),
        "source_citation": info.citation, "noise_citation": model.citation,
        "command": command,
        "files_note": files_note,
        "data_root": location[1] if location is not None else "",
        "layout": describe(request.layout, plan.data.feature_spec) if is_generic(request.source) else "",
    }


def _config_spec(request: ConfigRequest, data: SourceData, job: NoiseJob) -> dict[str, Any]:
    """What a config is built from, as the manifest keeps it (a build of the same spec rebuilds the config): a
    generic source adds its declared layout and its file's name (two tables of one format are two datasets)."""
    model = job.model
    spec = {"source": data.info.name, "lang": request.lang, "split": data.split, "fields": list(job.fields),
            "noise": model.noise_id, "noise_spec": format_noise(model, shareable=True), "params": model.shareable_params(),
            "digest": model.digest(), "seed": request.seed,
            "protect_entities": request.protect_entities, "revision": data.revision}
    if is_generic(request.source):
        spec["layout"] = request.layout.as_dict()
        spec["data_file"] = Path(request.data_file).name if request.data_file is not None else None
    return spec


def _file_identity(path: Path | None) -> dict[str, str] | None:
    """A local source file by name and sha256 (never its absolute path: cards are shared); a folder (a word-list
    lexicon) by the digest of its files' names and bytes that model folders have (:func:`folder_digest`). The
    manifest keeps the bare hex digest its ``sha256`` field always held, so folders built before compare equal."""
    if path is None:
        return None
    path = Path(path)
    if path.is_dir():
        return {"name": f"{path.name}/", "sha256": folder_digest(path).removeprefix("sha256:")}
    return {"name": path.name, "sha256": file_sha256(path).removeprefix("sha256:")}


def _check_not_empty(stats: ConfigStats, origin: str) -> None:
    """An empty split is an error (``load_dataset`` cannot read a 0-row config), never a silent success."""
    if stats.rows == 0:
        reasons = "; ".join(f"{n} {r}" for r, n in stats.dropped.most_common()) or "the source has no rows"
        raise ConfigError(f"every row of {origin} was dropped ({reasons}): nothing written")


def _shareable(text: str) -> str:
    """Card prose with absolute local paths (in backticks) cut to their file names."""
    return re.sub(r"`(/[^`]+)`", lambda m: f"`{Path(m.group(1)).name}`", text)


def _param_rows(model: NoiseModel) -> list[dict[str, str]]:
    """The card's parameter table: every declared parameter of every step, with its help."""
    rows = []
    for step in model.steps():
        recorded = step.shareable_params()
        for spec in step.param_specs():
            if spec.name in recorded:
                prefix = f"{step.name}." if len(model.steps()) > 1 else ""
                rows.append({"name": prefix + spec.name, "value": str(recorded[spec.name]), "help": spec.help})
    return rows


def build_all(out: Path, requests: Sequence[ConfigRequest], *, version: str = DEFAULT_DATASET_VERSION,
              pretty_name: str | None = None, recipe: dict[str, Any] | None = None, num_proc: int = 1,
              batch_size: int = 1000, overwrite: bool = False,
              progress: bool = True, add_source: bool = False, engine: str = "local",
              ray_address: str | None = None) -> list[BuiltConfig]:
    """Build every request into the repo folder ``out`` and render its card: what ``noisecraft build``,
    ``nc.build`` and ``nc.build_recipe`` all do. ``recipe`` (resolved) is kept in the manifest. A folder that
    holds configs of other sources takes a new source only with ``add_source`` (the card's sources change).
    ``engine`` runs the batches on this machine's process pool (``local``) or on Ray (``ray``, at ``ray_address``
    or a Ray started here): the bytes written are the same."""
    if not requests:
        raise ConfigError("nothing to build")
    check_sizes(num_proc, batch_size)  # before the folder or the worker pool is made
    check_engine(engine, ray_address)
    with DatasetRepo(Path(out), version, pretty_name) as repo, make_executor(engine, num_proc, ray_address) as pool:
        held = sorted({str(e["spec"].get("source")) for e in repo.manifest["configs"].values()})
        new = sorted({r.source for r in requests} - set(held))
        if held and new and not add_source:
            raise ConfigError(f"{out} holds a dataset of {', '.join(held)}; this build adds {', '.join(new)}, which changes "
                              "the dataset's sources and card: build into another folder, or pass --add-source "
                              "(add_source=True) to add it")
        built = [build_config(repo, r, num_proc=num_proc, batch_size=batch_size, overwrite=overwrite, progress=progress,
                              pool=pool) for r in requests]
        names = [b.name for b in built]
        if len(names) != len(set(names)):
            clash = next(n for n in names if names.count(n) > 1)
            raise ConfigError(f"two configs of this build are both named {clash!r}: give each a config_name")
        if recipe is not None:
            repo.record_recipe(recipe)
        write_card(repo)
    for config in built:
        for note in config.warnings:
            warnings.warn(f"{config.name}: {note}", NoiseWarning, stacklevel=2)
    return built


class NoiseWarning(UserWarning):
    """A build finished but its result deserves a look (e.g. the noise changed nothing)."""


def write_card(repo: DatasetRepo, repo_hint: str = "ORG/NAME") -> Path:
    """Render the card of everything the repo holds and commit it with the staged configs and manifest."""
    from noisecraft.dataset.card import render_card

    repo.commit(render_card(repo.manifest, repo_hint))
    return repo.root / "README.md"
