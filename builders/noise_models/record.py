"""The one input record every noise model's ``apply`` (and ``prepare``) takes: :class:`NoiseInput`.

A model receives the whole row context of a batch (texts, per-example generators, protected spans,
ids, class labels, the pair a field belongs to, and a joined parallel text) and uses what it needs,
so no flag has to say which arguments a model takes, and a chain forwards the same record from step
to step (:func:`noisecraft.noise_models.base.run_steps`). What a model *needs from a source* beyond
its rows (natural translation reads the parallel question of another language) it declares as a
:class:`~noisecraft.sources.join.Join`; the source layer (:mod:`noisecraft.sources.join`) resolves it, not the model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any, NamedTuple

from noisecraft.core.edits import Span
from noisecraft.core.seeding import ExampleRng
from noisecraft.errors import ConfigError

_SURROGATE = re.compile("[\ud800-\udfff]")


def text_problem(value: Any) -> str | None:
    """Why ``value`` cannot be noised as text (not a string, or not valid Unicode), or ``None`` when it can."""
    if not isinstance(value, str):
        return f"is {type(value).__name__} {value!r:.40}, not text"
    bad = _SURROGATE.search(value)
    if bad:
        return f"holds a lone surrogate U+{ord(bad.group()):04X} at offset {bad.start()} (not valid Unicode)"
    return None


def all_plain_texts(values: Sequence[Any]) -> bool:
    """Whether every value is a ``str`` that :func:`text_problem` accepts, found in C in one pass over them all
    (``str`` subclasses and pairs answer ``False``: check those one by one). Joining cannot make or hide a lone
    surrogate: a ``str`` is a sequence of code points, never of UTF-16 units; and strict UTF-8 refuses exactly the
    code points U+D800-U+DFFF, several times faster than a regular expression looks for them."""
    if not set(map(type, values)) <= {str}:
        return False
    try:
        "".join(values).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_seed(seed: Any) -> int:
    """A seed as a plain ``int`` (numpy integers too); anything else (a float, a bool, a string) is an error."""
    if not isinstance(seed, Integral) or isinstance(seed, bool):
        raise ConfigError(f"seed must be an integer, got {seed!r} ({type(seed).__name__})")
    return int(seed)


class PairText(NamedTuple):
    """A pair task's two texts in the task's order; ``target`` (0 or 1) is the one being noised."""

    first: str
    second: str
    target: int

    @property
    def text(self) -> str:
        """The text to noise."""
        return self.second if self.target else self.first

    def with_text(self, text: str) -> PairText:
        """The same pair with the target text replaced (a chain's next step sees the noisy side)."""
        return self._replace(second=text) if self.target else self._replace(first=text)


@dataclass(frozen=True)
class NoiseInput:
    """One batch of one field, as every noise model receives it; all sequences have one item per row.

    * ``texts``: the text to noise (for ``input="pair"`` models, ``(first, second)`` tuples);
    * ``rngs``: each row's own :class:`~noisecraft.core.seeding.ExampleRng` (the model's only randomness);
    * ``ids``: the rows' stable ids (default: their positions ``"0"``, ``"1"``, ...);
    * ``protected``: character spans each text must keep intact, or ``None`` when there are none;
    * ``labels``: each row's class label (``None`` items, or negative, where a row has none), or ``None``;
    * ``pairs``: for a field of a pair task, the :class:`PairText` each text belongs to (its ``text`` is
      ``texts[i]``; ``None`` items for rows outside a pair), or ``None``;
    * ``joined``: the text the model's :class:`~noisecraft.sources.join.Join` gave each row, or ``None`` (no join declared).
    """

    texts: Sequence[Any]
    rngs: Sequence[ExampleRng]
    ids: Sequence[str] | None = None
    protected: Sequence[Sequence[Span]] | None = None
    labels: Sequence[Any] | None = None
    pairs: Sequence[PairText | None] | None = None
    joined: Sequence[str] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.texts, str):
            raise ConfigError("pass a list of texts, not one string")
        set_ = object.__setattr__
        set_(self, "texts", tuple(self.texts))
        set_(self, "rngs", tuple(self.rngs))
        set_(self, "ids", tuple(str(i) for i in range(len(self.texts))) if self.ids is None else tuple(map(str, self.ids)))
        for name in ("rngs", "ids", "protected", "labels", "pairs", "joined"):
            value = getattr(self, name)
            if value is None:
                continue
            set_(self, name, tuple(tuple(s) for s in value) if name == "protected" else tuple(value))
            if len(getattr(self, name)) != len(self.texts):
                raise ConfigError(f"{len(getattr(self, name))} {name} for {len(self.texts)} texts")
        if self.protected is not None and not any(self.protected):
            set_(self, "protected", None)

    def __len__(self) -> int:
        return len(self.texts)

    def label(self, index: int) -> int | None:
        """Row ``index``'s class label, or ``None`` where it has none (no layout label, or negative)."""
        value = self.labels[index] if self.labels is not None else None
        return int(value) if isinstance(value, int) and value >= 0 else None

    def spans(self, index: int) -> Sequence[Span]:
        """Row ``index``'s protected spans (empty where there are none)."""
        return self.protected[index] if self.protected is not None else ()

    @classmethod
    def concat(cls, parts: Sequence[NoiseInput]) -> NoiseInput:
        """The rows of ``parts`` (records of one field, made alike) one after another: a split read in slices."""
        def joined(name: str) -> list[Any] | None:
            values = [getattr(part, name) for part in parts]
            return None if all(v is None for v in values) else [
                item for part, v in zip(parts, values) for item in (v if v is not None else [()] * len(part))]
        return cls(*(joined(name) or [] for name in ("texts", "rngs", "ids")),  # type: ignore[arg-type]
                   protected=joined("protected"), labels=joined("labels"), pairs=joined("pairs"), joined=joined("joined"))

    def take(self, indices: Sequence[int]) -> NoiseInput:
        """The rows at ``indices``, in that order (every per-row sequence cut alike)."""
        pick = (lambda values: None if values is None else [values[i] for i in indices])  # noqa: E731
        return replace(self, texts=pick(self.texts), rngs=pick(self.rngs), ids=pick(self.ids),
                       protected=pick(self.protected), labels=pick(self.labels), pairs=pick(self.pairs),
                       joined=pick(self.joined))
