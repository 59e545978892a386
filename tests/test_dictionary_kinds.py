"""Dictionaries carry their kind, and a model refuses another kind; pairs never hold control characters;
reduplication's extra letters are bounded."""

from __future__ import annotations

import pytest

import noisecraft as nc
from noisecraft.dataset.noise_dictionary import read_dictionary_rows
from noisecraft.errors import ConfigError, InputError

from tiny_models import tiny_model


def test_a_gec_confusion_table_is_not_a_misspelling_dictionary():
    """It used to insert a literal '∅' into most questions."""
    confusions = str(tiny_model("gec-confusions-sample"))
    assert read_dictionary_rows(confusions).kind == "gec"
    for spec in ("misspelling", "wikiedit", "reduplication"):
        with pytest.raises(ConfigError, match=rf"is a gec dictionary \(`noisecraft mine gec`\), not one {spec} uses"):
            nc.noise(spec, dictionary=confusions)


def test_a_misspelling_list_serves_misspelling_and_wikiedit_but_not_reduplication(tmp_path):
    from noisecraft.mining.misspellings import misspelling_dictionary
    from noisecraft.mining.output import write_dictionary

    source = tmp_path / "list.txt"
    source.write_text("abbout->about\nrecieve->receive\n", encoding="utf-8")  # Wikipedia "For machines" format
    folder = tmp_path / "misspellings"
    write_dictionary(folder, misspelling_dictionary([source], lang="en"))
    assert read_dictionary_rows(str(folder)).kind == "misspellings"
    assert nc.noise("misspelling", dictionary=str(folder), rate=1.0).augment(["receive it"], seed=0) == ["recieve it"]
    nc.noise("wikiedit", dictionary=str(folder))
    with pytest.raises(ConfigError, match="is a misspellings dictionary"):
        nc.noise("reduplication", dictionary=str(folder))


@pytest.mark.parametrize("pair", ["recei\rve\treceive", "receive\trec\x00ieve", "receive\trecieve\u0085"])
def test_control_characters_inside_a_pair_are_refused(tmp_path, pair):
    tsv = tmp_path / "d.tsv"
    tsv.write_text(f"about\tabbout\n{pair}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"d\.tsv, line 2: control character"):
        nc.noise("misspelling", dictionary=str(tsv))


def test_a_plain_tsv_serves_every_model(tmp_path):
    tsv = tmp_path / "d.tsv"
    tsv.write_text("good\tgoood\n", encoding="utf-8")
    assert read_dictionary_rows(str(tsv)).kind is None
    for spec in ("misspelling", "wikiedit", "reduplication"):
        nc.noise(spec, dictionary=str(tsv))


@pytest.mark.parametrize("value", [0, 101, 100000, 10**20])
def test_reduplication_extra_letters_is_bounded(value):
    with pytest.raises(ConfigError, match="extra_letters"):
        nc.noise("reduplication", extra_letters=value)
    assert nc.noise("reduplication", extra_letters=100, rate=1.0).augment(["so good"], seed=0)[0].count("o") >= 100
