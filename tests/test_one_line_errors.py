"""Inputs that used to give a traceback, a hang or an error without its cause: one line naming file/row/parameter."""

from __future__ import annotations

import codecs

import pytest

from noisecraft.cli import main

from conftest import corpus


def one_error(capsys) -> str:
    [message] = capsys.readouterr().err.strip().splitlines()
    assert message.startswith("noisecraft: error: ")
    return message


def test_mine_wikiedits_refuses_a_bad_config_name_before_creating_anything(tmp_path, capsys):
    dump = corpus("mediawiki/hiwiki_main_page_13revs.xml")
    out = tmp_path / "out"
    assert main(["mine", "wikiedits", str(dump), "--lang", "hi", "--config-name", "../x", "--out", str(out),
                 "--no-progress"]) == 2
    assert "invalid config name '../x'" in one_error(capsys)
    assert not out.exists() and not (tmp_path / "x").exists()


def test_a_dump_with_a_non_integer_namespace_says_why_it_gave_no_pairs(tmp_path, capsys):
    text = corpus("mediawiki/hiwiki_main_page_13revs.xml").read_text(encoding="utf-8")
    dump = tmp_path / "d.xml"
    dump.write_text(text.replace("<ns>0</ns>", "<ns>zero</ns>", 1), encoding="utf-8")
    assert main(["mine", "wikiedits", str(dump), "--lang", "hi", "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    message = one_error(capsys)
    assert "found no pairs in d.xml" in message and "<ns> is 'zero', not a namespace number" in message


@pytest.mark.parametrize("codec", ["utf-16", "utf-32"])
def test_utf16_and_utf32_inputs_say_so(tmp_path, capsys, codec):
    tweets = tmp_path / "tweets.csv"
    lines = corpus("sentiment140/testdata.manual.2009.06.14.csv").read_bytes().decode("latin-1").splitlines()[:20]
    tweets.write_bytes("\n".join(lines).encode(codec))  # Python's utf-16/32 codecs write the byte-order mark
    assert tweets.read_bytes().startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF32_LE, codecs.BOM_UTF16_BE))
    assert main(["mine", "reduplication", str(tweets), "--lexicon", str(corpus("opinion_lexicon/positive-words.txt")),
                 "--out", str(tmp_path / "out")]) == 2
    name = codec.upper()
    assert one_error(capsys) == (f"noisecraft: error: {tweets}, line 1: the file is {name} (it starts with a {name} "
                                 f"byte-order mark): re-encode it as UTF-8 (iconv -f {name} -t UTF-8)")
