"""Small CoLeS inputs the CoLeS tests share: a lexicon in the Hu & Liu release format and a set built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_models import tiny_model

#: A small opinion lexicon in the Hu & Liu release format (comments, one word a line).
LEXICON = {"positive-words.txt": ";; positive\n;\nhappy\nwonderful\nbrilliant\n",
           "negative-words.txt": ";; negative\n;\nterrible\nawful\n"}


def write_lexicon(folder: Path, files: dict[str, str | bytes] = LEXICON) -> Path:
    """The lexicon files in ``folder`` (text as ISO-8859-1, as the release is; bytes as given)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_bytes(text.encode("latin-1") if isinstance(text, str) else text)
    return folder


def wordnet_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian's WordNet (copied into an nltk_data folder) first on NLTK's path, for this test only."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", [str(tiny_model("nltk-data-sample")), *nltk.data.path])


def build_small_coles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A CoLeS dataset of the five adjectives of :data:`LEXICON` with two keyboard typos each, built by the normal
    pipeline (source ``coles-words``, split ``typo``) into ``tmp_path/coles``; its folder as a string."""
    import noisecraft as nc

    wordnet_on_path(monkeypatch)
    out = tmp_path / "coles"
    nc.build("coles-words", "keyboard(mode=coles, rate=1.0)", out, split="typo", data_file=write_lexicon(tmp_path / "lex"),
             config_name="typo-keyboard", progress=False)
    return str(out)
