"""What every noise model is: a named, versioned spec (frozen parameters) plus a runtime.

``apply(batch) -> list[Noised]`` takes one :class:`~noisecraft.noise_models.record.NoiseInput`: the texts,
each example's own :class:`~noisecraft.core.seeding.ExampleRng`, the character spans to leave untouched, the
ids, class labels and pair context of the rows. It never reads or seeds a global RNG. A change in a
model's output is a new ``version``, so a published set can always be regenerated with the version it names.

The **spec** is the frozen dataclass: its fields are the declared parameters
(:mod:`noisecraft.core.params`); it is cheap, picklable and hashed into every example's seed. The
**runtime** is what the spec loads (neighbour tables, dictionaries; models and weights for MT and
ASR): :meth:`NoiseModel.runtime` builds it once per process and keeps it there, so worker
processes receive only the spec and never a pickled dictionary with every batch.

:func:`model_input` makes the record of one field of a batch once; :func:`run_steps` runs a model, or each step
of a chain, on it: every later step gets the same record with its own streams and the spans, pair context and
text carried from the previous step, and the edit logs are composed against the original text, so any model
works inside a chain.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from noisecraft.core.edits import Noised, Span, compose, remap_span
from noisecraft.core.params import ParamSpec, file_digest, schema
from noisecraft.core.seeding import ExampleRng, example_rngs, params_digest
from noisecraft.errors import ConfigError, InputError
from noisecraft.noise_models.record import NoiseInput, PairText, all_plain_texts, check_seed, text_problem
from noisecraft.runtime.device import placement_scope

if TYPE_CHECKING:  # the source layer is loaded only by models that join
    from noisecraft.sources.join import Join

__all__ = ["Capabilities", "NoiseInput", "NoiseModel", "PairText", "model_input", "run_steps", "prepare_steps", "step_rngs"]

InputKind = Literal["text", "pair"]
EditLog = Literal["recorded", "aligned", "whole-field"]

#: Runtimes of the specs used in this process (a spec is frozen and hashable).
_RUNTIMES: dict[Any, Any] = {}


def content_digest(value: str | Path) -> str | None:
    """The digest by which a local file or folder enters a seed: a file's :func:`~noisecraft.core.params.file_digest`,
    a folder's :func:`~noisecraft.runtime.loading.folder_digest` (``sha256:...``); ``None`` when ``value`` names no
    local file or folder (a Hub id, a built-in layout name)."""
    path = Path(value).expanduser()
    if path.is_file():
        return file_digest(path)
    if path.is_dir():
        from noisecraft.runtime.loading import folder_digest  # the model layer, loaded only for a folder

        return folder_digest(path)
    return None


@dataclass(frozen=True)
class Capabilities:
    """What validation needs to know of a model (:mod:`noisecraft.building.noising` checks requests against it).

    Everything a model may read about its rows (ids, labels, pair context, joined text) is in its
    :class:`NoiseInput`, so no flag says which arguments it takes.

    * ``input``: ``text`` (one field), or ``pair`` (``(first, second)``; the second is replaced).
    * ``protects_spans``: honours ``protected`` spans (labelled answers, entity tokens stay intact).
      A model that cannot still keeps every answer that survives verbatim; others are dropped.
    * ``edit_log``: ``recorded`` (exact edits made by the model), ``aligned`` (derived afterwards
      by :func:`noisecraft.core.edits.align`) or ``whole-field`` (one replacement of the whole text;
      labels inside the field cannot survive).
    * ``model_based``: the model runs a neural model through :mod:`noisecraft.runtime`; builds call
      :meth:`NoiseModel.prepare` with every input of the split first, so the model's inner batches
      depend on the set of inputs, never on the build's batch size or ``num_proc``.
    * ``deterministic``: the output is a function of a row's record other than its id and random stream
      (text, spans, label, pair, joined text), so a build computes identical rows once (SQuAD contexts
      repeat about five times). Not a validation flag: a promise that lets the build skip work.
    """

    input: InputKind = "text"
    protects_spans: bool = True
    edit_log: EditLog = "recorded"
    model_based: bool = False
    deterministic: bool = False


@dataclass(frozen=True)
class NoiseModel:
    """Base of all noise models; subclasses are frozen dataclasses whose fields are the params."""

    name: ClassVar[str]
    version: ClassVar[int]
    #: BibTeX of the paper the model follows.
    citation: ClassVar[str]
    #: Per-row output columns (name -> ``datasets.Value`` dtype) whose values the model returns in
    #: :attr:`Noised.columns <noisecraft.core.edits.Noised>`; rows get them as ``noise_<name>``.
    row_columns: ClassVar[Mapping[str, str]] = {}
    capabilities: ClassVar[Capabilities] = Capabilities()

    def __post_init__(self) -> None:
        for spec in self.param_specs():
            object.__setattr__(self, spec.name, spec.coerce(getattr(self, spec.name), self.noise_id))
        self.check()
        self.runtime(refresh=True)  # load where the spec is made: a missing file is reported before any work

    def check(self) -> None:
        """Checks across parameters, and resolution of defaults (``lang`` -> layout); override."""

    # --- identity ------------------------------------------------------------------------------

    @property
    def noise_id(self) -> str:
        """Registry name with version, e.g. ``keyboard@1``."""
        return f"{self.name}@{self.version}"

    @classmethod
    def param_specs(cls) -> tuple[ParamSpec, ...]:
        """The declared parameters (see :mod:`noisecraft.core.params`)."""
        return schema(cls)

    def params(self) -> dict[str, Any]:
        """The parameters as given (file parameters as paths), recorded with every row and in the card."""
        return {s.name: getattr(self, s.name) for s in self.param_specs() if not s.init_only}

    def seed_params(self) -> dict[str, Any]:
        """The parameters that enter the seed: file parameters by the digest of their content
        (a path says where a file lives, not what it holds); dictionaries by their loaded entries."""
        out = {}
        for spec in self.param_specs():
            value = getattr(self, spec.name)
            if spec.init_only:
                continue
            if spec.file in ("file", "source"):
                if value:
                    out[f"{spec.name}_digest"] = file_digest(value)
                else:
                    out[spec.name] = value
            elif spec.file == "model":
                if value and Path(value).expanduser().is_dir():
                    out[f"{spec.name}_digest"] = content_digest(value)
                else:
                    # a Hub id by name, its commit in the provenance: the rule of the versions made before
                    # ModelNoise (translation@1, natural-translation@1, replace-entity@1), kept for their outputs;
                    # ModelNoise seeds a model by its resolved identity
                    out[spec.name] = value
            elif spec.file is None:
                out[spec.name] = value
        return out

    def digest(self) -> str:
        """Stable digest of :meth:`seed_params`, part of every example's seed."""
        return params_digest(self.seed_params())

    def shareable_params(self) -> dict[str, Any]:
        """:meth:`params` with every local file or folder in a canonical form: its name (the path's last part,
        without a trailing slash) and, as ``<param>_digest``, the digest of its content (:func:`content_digest`).
        What published rows and cards record: ``dictionary=misspellings-en/`` and ``dictionary=../misspellings-en``,
        ``model=models/sst2-model`` and ``model=sst2-model`` are the same parameter, so a config rebuilt from its
        card's command, from any folder, is byte-identical. A Hub id or a built-in name is kept as given."""
        files = self.path_params()
        out: dict[str, Any] = {}
        for key, value in self.params().items():
            digest = content_digest(value) if key in files and isinstance(value, str) and value else None
            if digest is None:
                out[key] = value
            else:
                out[key] = Path(value).expanduser().resolve().name
                out[f"{key}_digest"] = digest
        return out

    @classmethod
    def path_params(cls) -> set[str]:
        """The parameters whose value may name a local file or folder: those declared with ``file=``, and a
        keyboard's ``layout`` (a built-in name or a layout file)."""
        return {spec.name for spec in cls.param_specs() if spec.file is not None} | {"layout"}

    @property
    def params_json(self) -> str:
        """:meth:`shareable_params` as canonical JSON (the ``noise_params`` column and the card)."""
        return json.dumps(self.shareable_params(), sort_keys=True, ensure_ascii=False)

    def name_part(self) -> str:
        """Config-name fragment: the name, plus the parameters that differ from their defaults.

        A parameter naming a local file or folder enters as ``<param>-<digest>``: the first 8 hex digits of the
        content digest its seed uses (:func:`content_digest`), never the path's own names (``nltk_data`` or a
        home folder say where a file lives, not what it holds). A Hub id enters by its last part (``opus-mt-en-fr``).
        """
        parts = [self.name]
        paths = self.path_params()
        for spec in self.param_specs():
            value = getattr(self, spec.name)
            if spec.init_only or spec.name == "lang" or value == spec.default:
                continue  # the build's language is already part of the config name
            key = spec.name.replace("_", "")
            digest = content_digest(value) if spec.name in paths and isinstance(value, str) else None
            if digest is not None:
                parts.append(f"{key}-{digest.removeprefix('sha256:')[:8]}")
            elif spec.file is not None:  # a Hub id (or a mined config's name) by its last part
                parts.append(re.sub(r"[^A-Za-z0-9.]+", "-", Path(str(value).rstrip("/")).name).strip("-") or key)
            elif spec.choices is not None:
                parts.append(str(value))
            else:
                parts.append(f"{key}{value}")
        return "-".join(parts)

    def uses_lang(self) -> bool:
        """Whether the output depends on the model's ``lang`` parameter (so it must match the build's)."""
        return any(s.name == "lang" for s in self.param_specs())

    def steps(self) -> tuple[NoiseModel, ...]:
        """The models applied in sequence (one, except for a :class:`~noisecraft.noise_models.chain.NoiseChain`)."""
        return (self,)

    # --- runtime -------------------------------------------------------------------------------

    def load(self) -> Any:
        """Build what this spec needs at run time (tables, dictionaries, weights); override."""
        return None

    def runtime(self, refresh: bool = False) -> Any:
        """The runtime of this spec, loaded once per process. With ``refresh`` (whenever a spec is made),
        it is loaded again if a file it reads has changed since; plain calls cost one dictionary lookup."""
        key = (self, placement_scope())  # a Ray build resolves model placements for its actors: its own runtime
        held = _RUNTIMES.get(key)
        if held is not None and not refresh:
            return held[1]
        stamps = self._file_stamps()
        if held is None or held[0] != stamps:
            held = _RUNTIMES[key] = (stamps, self.load())
        return held[1]

    def _file_stamps(self) -> tuple[tuple[str, int, int], ...]:
        """Size and modification time of the local files the parameters name (folders: every file)."""
        stamps = []
        for spec in self.param_specs():
            value = getattr(self, spec.name)
            if spec.file is None or not value or not Path(value).exists():
                continue
            root = Path(value)
            for path in ([root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())):
                info = path.stat()
                stamps.append((str(path), info.st_size, info.st_mtime_ns))
        return tuple(stamps)

    # --- behaviour -----------------------------------------------------------------------------

    @classmethod
    def headline(cls) -> str:
        """The first paragraph of the class docstring, on one line (what ``noisecraft noises`` prints)."""
        return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())

    def describe(self) -> str:
        """One paragraph for the dataset card: what the noise does with these parameters. This default (the
        headline and the parameters' values) serves a model defined outside noisecraft; the built-in ones say more."""
        values = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in self.param_specs())
        return f"{self.headline()} Parameters: {values}." if values else self.headline()

    def provenance(self) -> dict[str, Any]:
        """What besides the parameters decided the output, for the card and manifest: resolved model
        revisions, decode settings, device and precision, library versions. Override (model-based)."""
        return {}

    def for_labels(self, names: Sequence[str]) -> NoiseModel:
        """This model for a dataset whose class label ``i`` is named ``names[i]`` (builds call it when the label
        column has names): a model whose output depends on labels checks they fit. Others are unchanged."""
        return self

    def without_labels(self, where: str) -> NoiseModel:
        """This model for a dataset without a class-label column (``where`` names it; builds and ``perturb`` call it
        then): a model whose output means something only against a row's label refuses. Others are unchanged."""
        return self

    def join(self) -> Join | None:
        """The source-level join this model reads (``NoiseInput.joined``), if any; override. The source layer
        resolves it (:mod:`noisecraft.sources.join`): a model never loads another source itself."""
        return None

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        """Compute (and cache) the model's outputs for every input of a split before the build runs
        its batches (``batch`` holds the whole split); :meth:`apply` then reads them back. Override
        (model-based models)."""

    def build_warnings(self, stats: Mapping[str, Any]) -> list[str]:
        """Warnings about a finished build from its statistics (e.g. a dictionary that matched nothing);
        the pipeline shows them loudly and keeps them in the manifest and card. Override."""
        return []

    def summary(self, stats: Mapping[str, Any]) -> str:
        """A sentence of results for the card from a finished build's statistics, whose ``columns`` sum up
        the :attr:`row_columns` (value counts of text columns, ``sum`` and ``rows`` of numbers). Override."""
        return ""

    def apply(self, batch: NoiseInput) -> list[Noised]:
        """Noise a batch of texts; one :class:`Noised` per text, in order. The model reads what it needs of
        the record (texts and streams always; spans, ids, labels, pair context or joined text when it uses them)."""
        raise NotImplementedError

    def __call__(self, texts: Sequence[Any], seed: int = 0, ids: Sequence[str] | None = None,
                 field: str = "text", protected: Sequence[Sequence[Span]] | None = None,
                 labels: Sequence[Any] | None = None) -> list[Noised]:
        """Noise ``texts`` with per-example streams from ``(seed, self, id, field)``.

        ``ids`` default to the positions (``"0"``, ``"1"``, ...); pin them to make an example's noise
        independent of where it sits in the list. A text may be a :class:`PairText` (a pair task's field
        with its pair: the model noises its ``text`` and may read the other side). Works for chains too.
        """
        if isinstance(texts, str):
            raise ConfigError("pass a list of texts, not one string")
        keys = list(map(str, range(len(texts)) if ids is None else ids))
        if len(keys) != len(texts):
            raise ConfigError(f"{len(keys)} ids for {len(texts)} texts")
        seed = check_seed(seed)
        if all_plain_texts(texts):  # the common case, checked in C; otherwise row by row, to name a bad one
            return run_steps(self, model_input(self, texts, seed, keys, field, protected, labels), seed, field)
        pairs = [t if isinstance(t, PairText) else None for t in texts]
        plain = [t.text if isinstance(t, PairText) else t for t in texts]
        for key, text in zip(keys, plain):
            for part in text if isinstance(text, tuple) and self.capabilities.input == "pair" else (text,):
                problem = text_problem(part)
                if problem:
                    raise InputError("texts", f"{field!r} {problem}", f"id {key!r}")
        batch = model_input(self, plain, seed, keys, field, protected, labels, pairs if any(pairs) else None)
        return run_steps(self, batch, seed, field)

    def augment(self, texts: Sequence[Any], seed: int = 0, ids: Sequence[str] | None = None) -> list[str]:
        """The noisy texts only (see :meth:`__call__`)."""
        return [n.text for n in self(texts, seed, ids)]


def step_rngs(model: NoiseModel, seed: int, ids: Sequence[str], field: str, step: int) -> list[ExampleRng]:
    """Per-example streams of one step; step 0 is exactly the single model's stream, later steps of
    a chain draw from their own (``field#stepN``)."""
    noise_id, digest = model.noise_id, model.digest()
    key = field if step == 0 else f"{field}#step{step}"
    return example_rngs(seed, noise_id, digest, ids, key)


def model_input(model: NoiseModel, texts: Sequence[Any], seed: int, ids: Sequence[str], field: str,
                protected: Sequence[Sequence[Span]] | None = None, labels: Sequence[Any] | None = None,
                pairs: Sequence[PairText | None] | None = None) -> NoiseInput:
    """The record of one field of a batch as ``model`` (the first step of a chain) receives it: its streams and the
    text of its join included. Built once per batch (by the build's :mod:`~noisecraft.building.noising` or a
    model's ``__call__``) and passed whole to :func:`run_steps` / :func:`prepare_steps`; later steps of a chain get
    the same record with their own streams, join and the previous step's texts, spans and pairs."""
    ids = list(map(str, ids))
    first = model.steps()[0]
    return NoiseInput(texts, step_rngs(first, seed, ids, field, 0), ids, protected, labels, pairs, _joined(first, ids))


def run_steps(model: NoiseModel, batch: NoiseInput, seed: int, field: str) -> list[Noised]:
    """Apply a model (or each step of a chain) to ``batch``, one field of a batch of rows (see :func:`model_input`):
    each step gets the whole record (its own streams; the ids, labels and joined text of the rows; spans and pair
    context carried from the previous step's output). The edit log is composed against the original text; the
    per-row columns are the last step's (only the last step of a chain may declare any)."""
    return _walk(model, batch, seed, field, prepare=False)


def prepare_steps(model: NoiseModel, batch: NoiseInput, seed: int, field: str, progress: bool = True) -> None:
    """Hand every model-based step the inputs it will see for the whole split (``batch``: every row):
    a step after the first gets the previous steps' outputs (the rule-based steps among them run here
    once more), so its inner batches depend on the split only, never on the build's batches."""
    _walk(model, batch, seed, field, prepare=True, progress=progress)


def _joined(model: NoiseModel, ids: Sequence[str]) -> list[str] | None:
    """The text the model's join gives each id (resolved by the source layer), or ``None``."""
    join = model.join()
    if join is None:
        return None
    from noisecraft.sources.join import joined_texts  # the source layer: loaded only by models that join

    return joined_texts(join, ids)


def _walk(model: NoiseModel, batch: NoiseInput, seed: int, field: str, *, prepare: bool,
          progress: bool = False) -> list[Noised]:
    steps = model.steps()
    texts = batch.texts
    current = list(texts)
    spans = [list(p) for p in batch.protected] if batch.protected is not None else None
    context = list(batch.pairs) if batch.pairs is not None else None
    logs: list[tuple] = [()] * len(current)
    failures: list[str | None] = [None] * len(current)
    columns: list[Mapping[str, Any] | None] = [None] * len(current)
    last_model_based = max((i for i, step in enumerate(steps) if step.capabilities.model_based), default=-1)
    for index, step in enumerate(steps):
        if index:
            batch = replace(batch, texts=current, rngs=step_rngs(step, seed, batch.ids, field, index),  # type: ignore[arg-type]
                            protected=spans, pairs=context, joined=_joined(step, batch.ids))  # type: ignore[arg-type]
        if prepare:
            if step.capabilities.model_based:
                step.prepare(batch, progress)
            if index >= last_model_based:
                return []
        results = step.apply(batch)
        if len(steps) == 1:
            return results
        for i, noised in enumerate(results):
            if failures[i] is not None:
                continue
            if noised.failure is not None:
                failures[i] = noised.failure
                continue
            logs[i] = compose(texts[i], logs[i], noised.edits)
            # spans move with the text; one an edit went through is no longer protected by later steps
            if spans is not None:
                spans[i] = [moved for s, e in spans[i] if (moved := remap_span(s, e, noised.edits)) is not None]
            current[i] = noised.text
            columns[i] = noised.columns
            pair = context[i] if context is not None else None
            if pair is not None:
                context[i] = pair.with_text(noised.text)
    return [Noised(texts[i], (), failures[i]) if failures[i] is not None else
            Noised(current[i], tuple(logs[i]), None, columns[i]) for i in range(len(current))]
