"""A noise model for tests that records every record it is given (``apply`` and ``prepare``) and marks its
output, so a test can see exactly what a chain or a build forwards to a step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from noisecraft.core.edits import Edit, Noised
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel

#: Every record given to a Recorder, as ("apply" | "prepare", record), in call order.
SEEN: list[tuple[str, NoiseInput]] = []


@dataclass(frozen=True)
class Recorder(NoiseModel):
    """Appends ``!`` to each text and reports the row's label in the per-row column ``seen_label``."""

    name: ClassVar[str] = "recorder"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = ""
    capabilities: ClassVar[Capabilities] = Capabilities(model_based=True)
    row_columns: ClassVar[Mapping[str, str]] = {"seen_label": "int32"}

    def describe(self) -> str:
        return "Appends an exclamation mark (a test model)."

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        SEEN.append(("prepare", batch))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        SEEN.append(("apply", batch))
        return [Noised(text + "!", (Edit(len(text), len(text), "", "!", "recorder"),), None,
                       {"seen_label": batch.label(i)}) for i, text in enumerate(batch.texts)]
