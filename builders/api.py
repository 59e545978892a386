"""The Python face: what the CLI does, in as many lines.

```python
import noisecraft as nc
kb = nc.noise("keyboard", lang="de", rate=0.25)         # validated, versioned keyboard@N
kb.augment(["Wie viele Punkte?"], seed=0)               # -> list[str]
ds2 = nc.perturb(ds, kb, fields=["question"], seed=0)   # any datasets.Dataset -> Dataset
nc.build("xquad", lang="de", noise=kb, out="xquad-noisy/")
nc.build("csv", noise=kb, data_file="reviews.csv", fields=["text"], label_field="label", out="reviews-noisy/")
nc.build_recipe("scripts/recipes/noiseqa-keyboard.toml", out="out/", data_dir="corpora/")
```
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from noisecraft.building.config_request import ConfigRequest
from noisecraft.building.noising import NoiseJob, check_text_fields, perturb_rows, prepare_field
from noisecraft.building.pipeline import BuiltConfig, build_all, output_features
from noisecraft.building.recipe import find_recipe, load_recipe, requests
from noisecraft.core.labels import LabelLayout
from noisecraft.core.schema import class_names, to_features, value
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseModel
from noisecraft.noise_models.registry import chain, create, parse_noise, register_noise
from noisecraft.sources.table import TableLayout, content_id
from noisecraft.version import DEFAULT_DATASET_VERSION

if TYPE_CHECKING:
    import datasets


def noise(spec: str, lang: str | None = None, **params: Any) -> NoiseModel:
    """A validated noise model: ``noise("keyboard", lang="de", rate=0.1)``, or its text form
    ``noise("misspelling(dictionary=d/) | keyboard")`` (then without keyword parameters)."""
    if "(" in spec or "|" in spec:
        if params:
            raise ConfigError("give parameters either in the text form or as keywords, not both")
        return parse_noise(spec, lang)
    return create(spec, lang, **params)


def _check_one_dataset(dataset: Any) -> None:
    """Refuse what is not one ``datasets.Dataset`` (a ``DatasetDict`` of splits, a list of rows) in one line."""
    import datasets

    if not isinstance(dataset, datasets.Dataset):
        hint = (": pass one split (dataset['validation']), or perturb each split: "
                "DatasetDict({name: nc.perturb(split, ...) for name, split in dataset.items()})"
                if isinstance(dataset, datasets.DatasetDict) else "")
        raise ConfigError(f"perturb takes a datasets.Dataset, not a {type(dataset).__name__}{hint}")


def perturb(dataset: datasets.Dataset, model: NoiseModel | str, fields: Sequence[str], seed: int = 0, *,
            labels: LabelLayout | None = None, id_column: str = "id", protect_entities: bool = False,
            num_proc: int | None = None, batch_size: int = 1000) -> datasets.Dataset:
    """Noise ``fields`` of any ``datasets.Dataset`` (a batched ``map``; ``num_proc`` workers).

    Each row's randomness comes from its ``id_column`` (which must be unique), so the result is the
    same for any ``num_proc`` and ``batch_size``. A dataset without an ``id`` column (and ``id_column`` left at
    ``"id"``) gets the ids a build gives a table without an id field, from each row's content and position
    (:func:`~noisecraft.sources.table.content_id`), in an added ``id`` column. ``labels`` says where labels live (answer spans,
    token tags, text pairs, class label) so they stay valid; rows that cannot be kept valid are dropped,
    and a warning says how many and why. The output has the columns of a built challenge set (an empty
    dataset gives an empty one with those columns).

    A dataset that already has a column perturb writes (``original_<field>``, ``noise_edits``, ...) is
    refused rather than overwritten: perturbing a challenge set again would lose its clean text or its edit
    log. Chain the models on the clean set instead (``nc.noise("misspelling | keyboard")``): the chain keeps
    the clean text and one edit log against it. Bad values (a field that is not text, a lone surrogate) are
    a one-line error naming the row id and the field.
    """
    _check_one_dataset(dataset)
    import datasets

    job, derived, out_features = _perturb_job(dataset, model, fields, seed, labels or LabelLayout(), id_column,
                                              protect_entities)
    model = job.model
    if dataset.num_rows == 0:
        return datasets.Dataset.from_dict({name: [] for name in out_features}, features=out_features)
    dropped: Counter[str] = Counter()
    def with_ids(rows: list[dict[str, Any]], positions: Sequence[int]) -> list[dict[str, Any]]:
        for row, position in zip(rows, positions):
            row["id"] = content_id(row, position) if derived else str(row[id_column])
        return rows

    if model.capabilities.model_based:  # the whole field through the model first, as builds do
        rows = with_ids(dataset.to_list(), range(dataset.num_rows))
        for name in job.fields:
            prepare_field(job, rows, name)

    def batch(columns: Mapping[str, list[Any]], positions: list[int]) -> dict[str, list[Any]]:
        names = list(columns)
        rows = with_ids([dict(zip(names, values)) for values in zip(*(columns[n] for n in names))], positions)
        kept, drops = perturb_rows(job, rows)
        dropped.update(drops)
        return {name: [row[name] for row in kept] for name in out_features}

    result = dataset.map(batch, batched=True, with_indices=True, batch_size=batch_size, num_proc=num_proc,
                         features=out_features, remove_columns=dataset.column_names, desc=f"noise {model.noise_id}")
    lost = dataset.num_rows - result.num_rows
    if lost:
        reasons = "; ".join(f"{n} {r}" for r, n in dropped.most_common()) or "see the noise model's failures"
        warnings.warn(f"perturb dropped {lost} of {dataset.num_rows} rows ({reasons})", stacklevel=2)
    return result


def _perturb_job(dataset: datasets.Dataset, model: NoiseModel | str, fields: Sequence[str], seed: int,
                 layout: LabelLayout, id_column: str, protect_entities: bool) -> tuple[NoiseJob, bool, datasets.Features]:
    """What :func:`perturb` does to ``dataset``, checked before any row is noised: the job (model bound to the
    dataset's class names), whether ids are derived from the rows' content, and the output features."""
    model = parse_noise(model) if isinstance(model, str) else model
    if isinstance(fields, str):
        raise ConfigError(f"fields is a list of column names: fields=[{fields!r}]")
    spec = dataset.features.to_dict()
    names = class_names(spec, layout.class_label)
    if names:
        model = model.for_labels(names)
    elif layout.class_label is None:
        model = model.without_labels("the dataset")
    job = NoiseJob(model, seed, tuple(fields), layout, protect_entities, "the dataset")
    check_text_fields(spec, job.fields, layout, "the dataset")
    derived = _derived_ids(dataset, id_column)
    out_features = to_features(output_features({**spec, "id": value("string")} if derived else spec, job.fields, model))
    own = {name: spec[name] for name in job.fields}
    clash = [name for name in output_features(own, job.fields, model) if name not in own and name in dataset.column_names]
    if clash:
        raise ConfigError(f"the dataset already has a column {clash[0]!r}, which perturb writes: it looks like a "
                          "challenge set already. Perturb the clean set with a chain instead (e.g. "
                          "nc.noise('misspelling | keyboard'): one edit log against the clean text), or remove the column")
    return job, derived, out_features


def _derived_ids(dataset: datasets.Dataset, id_column: str) -> bool:
    """Whether :func:`perturb` derives the rows' ids (no ``id`` column, none named), else checks ``id_column``: one
    non-empty, unique id per row."""
    if id_column == "id" and "id" not in dataset.column_names:
        return True
    if id_column not in dataset.column_names:
        raise ConfigError(f"the dataset has no {id_column!r} column; pass id_column= (a column of unique ids)")
    if id_column != "id" and "id" in dataset.column_names:
        raise ConfigError("the dataset has an 'id' column and id_column names another one: rename one of them")
    ids = dataset[id_column]
    if None in ids:
        raise ConfigError(f"column {id_column!r} has an empty id (row {ids.index(None)}): every row needs its own id")
    if len(set(map(str, ids))) != len(ids):
        raise ConfigError(f"column {id_column!r} has duplicate values: every row needs its own random stream")
    return False


def build(source: str, noise: NoiseModel | str | Sequence[NoiseModel | str] = "keyboard", out: str | Path = "noisecraft-out",
          *, lang: str | Sequence[str] = "en", split: str | None = None, data_file: str | Path | None = None,
          data_dir: str | Path | None = None, revision: str | None = None, seed: int = 0, fields: Sequence[str] | None = None,
          config_name: str | None = None, protect_entities: bool = False, label_field: str | None = None,
          label_names: str | Sequence[str] | None = None, span_labels: str | Sequence[str] | None = None,
          token_labels: str | Sequence[str] | None = None, id_field: str | None = None, hub_config: str | None = None,
          version: str = DEFAULT_DATASET_VERSION, pretty_name: str | None = None, num_proc: int = 1,
          batch_size: int = 1000, overwrite: bool = False, progress: bool = True, add_source: bool = False,
          engine: str = "local", ray_address: str | None = None) -> list[BuiltConfig]:
    """One config per language x noise into ``out``; ``noisecraft build --source ...`` calls exactly this.
    ``source`` is a benchmark or a table: ``csv``, ``tsv``, ``jsonl``, ``parquet`` (its ``data_file``) or
    ``hub:ORG/NAME`` (its ``hub_config``), whose layout is declared: the text ``fields`` (required), and optionally
    ``label_field`` (with ``label_names``), ``span_labels`` (``"context:answers"``), ``token_labels``
    (``"tokens:tags"``) and ``id_field`` (:mod:`noisecraft.sources.table`).
    ``data_file`` may hold ``{lang}`` (it must, for several languages); a relative one is read under ``data_dir``
    when given (a folder of original release files, as for recipes), and the card's regenerate command then names
    it relative to that folder. A folder holding other sources takes this one only with ``add_source``.
    ``engine="ray"`` runs the batches on Ray (the cluster at ``ray_address``, else a Ray started here), writing the
    same bytes as the local pool."""
    langs = [lang] if isinstance(lang, str) else list(lang)
    noises = [noise] if isinstance(noise, (str, NoiseModel)) else list(noise)
    if not langs or not noises:
        raise ConfigError("give at least one language and one noise")
    if config_name and len(langs) * len(noises) > 1:
        raise ConfigError("config_name= / --config-name names a single config: give one language and one noise")
    if data_file is not None and len(langs) > 1 and "{lang}" not in str(data_file):
        raise ConfigError("several languages with one data_file= / --data-file: put '{lang}' in its path")
    root = Path(data_dir) if data_dir is not None else None
    if root is not None and not data_file:
        raise ConfigError("data_dir= / --data-dir is the folder data_file= / --data-file is read under: give the file too")
    if root is not None and not root.is_dir():
        raise ConfigError(f"data_dir= / --data-dir {root}: no such folder")

    def file_of(code: str) -> Path | None:  # an absolute path stays as it is under a root (pathlib's ``/``)
        if not data_file:
            return None
        file = Path(str(data_file).replace("{lang}", code))
        return root / file if root is not None else file

    layout = TableLayout.declare(label_field, label_names, span_labels, token_labels, id_field, hub_config)
    requests = [ConfigRequest(source=source, noise=n, lang=code, split=split, data_file=file_of(code), data_dir=root,
                              revision=revision, seed=seed, fields=tuple(fields) if fields else None,
                              config_name=config_name, protect_entities=protect_entities, layout=layout)
                for code in langs for n in noises]
    return build_all(Path(out), requests, version=version, pretty_name=pretty_name, num_proc=num_proc,
                     batch_size=batch_size, overwrite=overwrite, progress=progress, add_source=add_source,
                     engine=engine, ray_address=ray_address)


def build_recipe(path: str | Path, out: str | Path, *, data_dir: str | Path | None = None, seed: int | None = None,
                 sets: Sequence[str] = (), version: str | None = None, pretty_name: str | None = None,
                 num_proc: int = 1, batch_size: int = 1000, overwrite: bool = False,
                 progress: bool = True, add_source: bool = False, engine: str = "local",
                 ray_address: str | None = None) -> list[BuiltConfig]:
    """Every config of a recipe into ``out``; ``noisecraft build RECIPE`` calls exactly this. ``path`` is a recipe
    file or the name of a recipe that ships with noisecraft (:func:`~noisecraft.building.recipe.catalogue`). ``seed`` and
    ``sets`` (``key=value``) override the recipe; ``version`` and ``pretty_name`` default to the recipe's.
    ``engine`` and ``ray_address`` as for :func:`build`."""
    recipe = load_recipe(find_recipe(path), seed, sets)
    return build_all(Path(out), requests(recipe, Path(data_dir) if data_dir else None),
                     version=version or recipe.version, pretty_name=pretty_name or recipe.pretty_name,
                     recipe=recipe.table, num_proc=num_proc, batch_size=batch_size, overwrite=overwrite,
                     progress=progress, add_source=add_source, engine=engine, ray_address=ray_address)


__all__ = ["LabelLayout", "build", "build_recipe", "chain", "noise", "perturb", "register_noise"]
