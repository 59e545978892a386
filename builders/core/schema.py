"""Column types of sources and challenge sets, in the JSON form of ``datasets.Features``, without ``datasets``.

A build from a local file needs its output's Arrow schema (with the ``huggingface`` metadata that
``datasets.load_dataset`` reads the features back from) and nothing else of ``datasets``, whose import costs
about 1.2 s of CPU and 0.4 s more at exit: more than the noise of a few thousand questions, and all of it before
the first batch, so on the critical path of a parallel build. So the sources declare their columns here, as the
very dicts ``Features.to_dict()`` gives (``{"dtype": "string", "_type": "Value"}``...), and :func:`arrow_schema`
turns them into what ``Features.from_dict(spec).arrow_schema`` gives, byte for byte (tested for every source and
every model's per-row columns). :func:`to_features` gives the ``datasets.Features`` for users and the Hub path.

Only the kinds the package declares are known: ``Value``, ``ClassLabel``, ``List`` and nested dicts (structs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

#: Column name -> feature, in the JSON form of ``datasets.Features`` (``Features.to_dict()``).
FeatureSpec = dict[str, Any]


def value(dtype: str) -> dict[str, Any]:
    """``datasets.Value(dtype)``: a scalar column (``string``, ``int32``, ``int64``, ``float64``, ``bool``...)."""
    return {"dtype": dtype, "_type": "Value"}


def class_label(names: Sequence[str]) -> dict[str, Any]:
    """``datasets.ClassLabel(names=...)``: an int64 column whose values index ``names``."""
    return {"names": list(names), "_type": "ClassLabel"}


def list_of(feature: Mapping[str, Any]) -> dict[str, Any]:
    """``datasets.List(feature)``: a column of variable-length lists."""
    return {"feature": dict(feature), "_type": "List"}


def arrow_type(feature: Mapping[str, Any]) -> Any:
    """The Arrow type ``datasets`` stores a feature as; a kind this module does not know is an error."""
    import pyarrow as pa

    kind = feature.get("_type")
    if kind is None:  # a struct: its fields in order
        return pa.struct([(name, arrow_type(inner)) for name, inner in feature.items()])
    if kind == "Value":
        dtype = feature["dtype"]  # as datasets reads it: pyarrow's factory of that name (bool: bool_)
        make = getattr(pa, dtype, None) or getattr(pa, f"{dtype}_", None)
        try:
            made = make() if callable(make) else None
        except TypeError:  # a factory that takes arguments (list_, struct...): not a Value dtype
            made = None
        if not isinstance(made, pa.DataType):
            raise ValueError(f"unsupported Value dtype {dtype!r}")
        return made
    if kind == "ClassLabel":
        return pa.int64()
    if kind == "List" and feature.get("length", -1) == -1:
        return pa.list_(arrow_type(feature["feature"]))
    raise ValueError(f"unsupported feature {dict(feature)!r}")


def arrow_schema(spec: FeatureSpec) -> Any:
    """The Arrow schema of a table of these columns, with the ``huggingface`` metadata ``datasets`` writes (the
    same bytes as ``datasets.Features.from_dict(spec).arrow_schema``)."""
    import pyarrow as pa

    metadata = json.dumps({"info": {"features": spec}})
    return pa.schema([(name, arrow_type(feature)) for name, feature in spec.items()]).with_metadata({"huggingface": metadata})


def to_features(spec: FeatureSpec) -> Any:
    """The ``datasets.Features`` of these columns."""
    import datasets

    return datasets.Features.from_dict(spec)


def class_names(spec: FeatureSpec, column: str | None) -> list[str] | None:
    """The class names of a ``ClassLabel`` column, or ``None`` (no such column, or not a class label)."""
    feature = spec.get(column) if column else None
    return list(feature["names"]) if feature is not None and feature.get("_type") == "ClassLabel" else None
