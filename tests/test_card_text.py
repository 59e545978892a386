"""Cards are rendered without ``huggingface_hub.repocard`` (noisecraft.dataset.card.card_text): the text is what
``DatasetCard.from_template`` gives for the same metadata, template and values, on every card these builds render
(challenge sets of two sources in one folder, several noises and a chain, a name with quotes, a noise dictionary)."""

from __future__ import annotations

from pathlib import Path

import pytest
from huggingface_hub import DatasetCard

import noisecraft as nc
from noisecraft.core.schema import value
from noisecraft.dataset import card
from noisecraft.mining.output import MinedDictionary, write_dictionary

DATA = Path(__file__).parent / "data"


@pytest.fixture
def rendered(monkeypatch):
    """Every ``card_text`` call made meanwhile: its arguments and its text."""
    calls = []
    render = card.card_text

    def recording(card_data, template, **values):
        text = render(card_data, template, **values)
        calls.append((card_data, template, values, text))
        return text

    monkeypatch.setattr(card, "card_text", recording)  # both kinds of card are rendered in card.py
    return calls


def test_cards_read_as_datasetcard_renders_them(tmp_path, rendered):
    nc.build("demo", ["keyboard", "swap", "keyboard(mode=coles) | shuffle"], tmp_path / "demo", progress=False)
    nc.build("glue/mrpc", "keyboard", tmp_path / "demo", data_file=DATA / "sources" / "glue_mrpc.tsv",
             add_source=True, progress=False)
    nc.build("xquad", "keyboard", tmp_path / "de", lang="de", data_file=DATA / "xquad_slice.de.json",
             pretty_name="A name: with \"quotes\" and 'more'", progress=False)
    rows = [{"lang": "en", "correct": "the", "noisy": "teh", "count": 3, "probability": 0.75, "sources": "a.txt"},
            {"lang": "en", "correct": "the", "noisy": "hte", "count": 1, "probability": 0.25, "sources": "a.txt"}]
    write_dictionary(tmp_path / "dictionary", MinedDictionary(
        miner="misspellings", lang="en", inputs=["a.txt"], params={"min_count": 1}, rows=rows,
        columns={"sources": value("string")}, column_docs={"sources": "the files a pair was read from"},
        stats={"files": 1, "skipped": "none"}, description="pairs read from a list: `a.txt` | more",
        source_description="a list of misspellings", license="cc-by-sa-4.0", citation="@misc{x, title={X}}",
        command=["noisecraft", "mine", "misspellings", "a.txt"], use_command="noisecraft build --noise x --out {out}",
        sections=(("Table", "| a | b |\n|---|---|\n| 1 | 2 |"),)))
    assert len(rendered) == 4  # a card per build, and the dictionary's
    for card_data, template, values, text in rendered:
        assert text == str(DatasetCard.from_template(card_data, template_str=template, **values))
