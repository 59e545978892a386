"""Sources by name: the benchmarks ``squad``, ``xquad``, ``glue/<task>``, ``xnli``, ``wikiann``, ``demo``,
``coles-words``, and the generic ``csv``, ``tsv``, ``jsonl``, ``parquet`` and ``hub:ORG/NAME``
(:mod:`noisecraft.sources.table`), which read any table with a declared layout."""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from pathlib import Path

from noisecraft.errors import ConfigError
from noisecraft.sources.base import SourceAdapter, SourceData, SourceInfo
from noisecraft.sources.glue import TASKS, GlueAdapter
from noisecraft.sources.squad import SQUAD, XQUAD, SquadAdapter
from noisecraft.sources.table import GENERIC_SOURCES, TableLayout, is_generic, load_table, table_info
from noisecraft.sources.wikiann import WikiannAdapter
from noisecraft.sources.wordlist import WordListAdapter
from noisecraft.sources.xnli import XnliAdapter

#: The built-in sample: SQuAD-format questions written for noisecraft (CC-BY-4.0).
DEMO = replace(SQUAD, name="demo", hub_id="", license="cc-by-4.0", citation="", pretty="noisecraft demo sample")


def demo_file() -> Path:
    """Path of the SQuAD-format sample that ships with the package."""
    return Path(str(resources.files("noisecraft") / "samples" / "demo_squad.json"))


class DemoAdapter(SquadAdapter):
    """The built-in sample; with no file it reads the copy that ships with the package."""

    def __init__(self) -> None:
        super().__init__(DEMO)

    def load(self, lang: str, split: str | None = None, data_file: Path | None = None,
             revision: str | None = None) -> SourceData:
        if revision is not None:
            raise ConfigError("the demo sample ships with noisecraft: revision= / --revision does not apply")
        data = super().load(lang, split, data_file or demo_file())
        if data_file is None:
            data.origin = "noisecraft built-in sample (builders/samples/demo_squad.json)"
        return data


ADAPTERS: dict[str, SourceAdapter] = {
    "squad": SquadAdapter(SQUAD),
    "xquad": SquadAdapter(XQUAD),
    **{f"glue/{task}": GlueAdapter(task) for task in TASKS},
    "xnli": XnliAdapter(),
    "wikiann": WikiannAdapter(),
    "demo": DemoAdapter(),
    "coles-words": WordListAdapter(),
}
SOURCE_NAMES = tuple(ADAPTERS)


def adapter(name: str) -> SourceAdapter:
    """The adapter of a benchmark name."""
    try:
        return ADAPTERS[name]
    except KeyError:
        raise ConfigError(f"unknown source {name!r}; benchmarks: {', '.join(SOURCE_NAMES)}; any table: "
                          f"{', '.join(GENERIC_SOURCES)}") from None


def source_info(name: str, layout: TableLayout | None = None) -> SourceInfo:
    """Static facts of a source, without loading it; a generic source's with the ``layout`` it was declared with
    (a manifest keeps it: ``TableLayout.declare(**spec["layout"])``)."""
    return table_info(name, layout or TableLayout()) if is_generic(name) else adapter(name).info


def load_source(name: str, lang: str, split: str | None = None, data_file: Path | None = None,
                revision: str | None = None, layout: TableLayout | None = None) -> SourceData:
    """Rows of a split: a benchmark's from the Hub (at ``revision``) or from ``data_file`` in the original format; a
    generic source's from its table or Hub id, with the declared ``layout``."""
    if is_generic(name):
        return load_table(name, lang, split, data_file, revision, layout or TableLayout())
    return adapter(name).load(lang, split, data_file, revision)
