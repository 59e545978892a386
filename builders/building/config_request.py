"""One config to build, as the CLI, the Python face and recipes ask for it.

Its own module because :mod:`noisecraft.building.recipe` makes requests and :mod:`noisecraft.building.pipeline` builds
them (and renders the card, which prints the recipe): neither may import the other's half.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseModel
from noisecraft.sources.table import GENERIC_SOURCES, TableLayout, is_generic


@dataclass(frozen=True)
class ConfigRequest:
    """One config to build: which data, which noise (a model, or its text form), which seed."""

    source: str
    noise: NoiseModel | str
    lang: str = "en"
    split: str | None = None
    data_file: Path | None = None
    #: The data root ``data_file`` was found under (``--data-dir``): the card names the file relative to it.
    data_dir: Path | None = None
    revision: str | None = None
    seed: int = 0
    fields: tuple[str, ...] | None = None
    config_name: str | None = None
    protect_entities: bool = False
    #: A generic source's declared layout (:mod:`noisecraft.sources.table`); a benchmark declares its own.
    layout: TableLayout = TableLayout()

    def __post_init__(self) -> None:
        if not 0 <= self.seed < 2**63:
            raise ConfigError(f"seed must be an integer in [0, 2**63), got {self.seed}")
        if not is_generic(self.source) and self.layout != TableLayout():
            options = ", ".join(o for o in self.layout.options() if o.startswith("--"))
            raise ConfigError(f"{options}: only a table or Hub source ({', '.join(GENERIC_SOURCES)}) is given a "
                              f"layout; {self.source} declares its own")
        if is_generic(self.source) and not self.fields:
            raise ConfigError(f"a {self.source} source needs fields= / --fields: the text columns to noise")
