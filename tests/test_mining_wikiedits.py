"""Wikipedia edit-history mining on real MediaWiki exports, damaged and foreign inputs (errors, or
skipped and reported with keep_going), repeated inputs, encodings, and resumption."""

from __future__ import annotations

import gzip
import os
import random
import shutil
import subprocess
from pathlib import Path

import datasets
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from noisecraft.core.text_units import tokenize
from noisecraft.dataset.noise_dictionary import load_dictionary
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.mediawiki import MAX_DEPTH, DumpError, DumpReader, PageEnd, Revision, read_dump
from noisecraft.mining.output import write_dictionary
from noisecraft.mining.wiki_text import LanguageText
from noisecraft.mining.wikiedits import (
    SentenceCache,
    WikiEditMiner,
    changed_lines,
    checkpoint_path,
    dictionary_rows,
    mine_dumps,
    mine_wikiedits,
)

from conftest import corpus
from test_cli import noisecraft

EXPORT = """<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="en">
  <page><title>Empty</title><ns>0</ns><id>1</id></page>
  <page><title>Bridge</title><ns>0</ns><id>2</id>
    <revision><id>10</id><text>The bridge was opend in 1937. It is red.</text></revision>
    <revision><id>11</id><text>The bridge was opened in 1937. It is red.</text></revision>
    <revision><id>12</id><text deleted="deleted" /></revision>
  </page>
  <page><title>Talk:Bridge</title><ns>1</ns><id>3</id>
    <revision><id>20</id><text>Teh talk.</text></revision>
    <revision><id>21</id><text>The talk.</text></revision>
  </page>
</mediawiki>
"""


def _items(path: Path) -> list[Revision | PageEnd]:
    return list(read_dump(path))


@pytest.mark.parametrize(("name", "pages", "revisions"), [
    ("enwiki-20140102.tiny.xml.gz", 2, 106),
    ("pywikibot_article-pear_export-0.3.xml", 1, 4),
    ("pywikibot_article-pyrus.xml.bz2", 1, 6),
    ("pywikibot_article-pyrus-utf16.xml", 1, 6),
    ("pywikibot_pair_export-0.10.xml", 2, 4),
    ("hiwiki_kahani_94revs.xml", 1, 94),
])
def test_reads_real_exports_in_every_compression_and_encoding(name, pages, revisions):
    items = _items(corpus(f"mediawiki/{name}"))
    assert sum(isinstance(i, PageEnd) for i in items) == pages
    assert sum(isinstance(i, Revision) for i in items) == revisions
    assert all(i.text for i in items if isinstance(i, Revision))


def test_reads_7z(tmp_path):
    program = shutil.which("7z") or shutil.which("7za")
    if program is None:
        pytest.skip("the 7z program is not installed (Debian: p7zip-full)")
    archive = tmp_path / "dump.xml.7z"
    subprocess.run([program, "a", str(archive), str(corpus("mediawiki/pywikibot_article-pear_export-0.3.xml"))],
                   check=True, capture_output=True)
    assert sum(isinstance(i, Revision) for i in _items(archive)) == 4


def test_small_export_pages_without_revisions_deleted_text_and_namespaces(tmp_path):
    path = tmp_path / "export.xml"
    path.write_text(EXPORT, encoding="utf-8")
    result = WikiEditMiner("en").mine_file(path)
    assert result.stats["pages"] == 3 and result.stats["pages_without_revisions"] == 1
    assert result.stats["revisions"] == 3 and result.stats["revisions_without_text"] == 1  # Talk: not mined
    assert dict(result.counts) == {("opened", "opend"): 1}
    [example] = result.examples["opened", "opend"]
    assert example == {"page": "Bridge", "old_revision": "10", "new_revision": "11",
                       "before": "The bridge was opend in 1937.", "after": "The bridge was opened in 1937."}


def test_a_truncated_dump_keeps_what_came_before(tmp_path):
    data = corpus("mediawiki/enwiki-20140102.tiny.xml.gz").read_bytes()
    cut = tmp_path / "cut.xml.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    whole = WikiEditMiner("en").mine_file(corpus("mediawiki/enwiki-20140102.tiny.xml.gz"))
    partial = WikiEditMiner("en").mine_file(cut)
    assert partial.error and "cut.xml.gz" in partial.error and "truncated" in partial.error
    assert 0 < partial.stats["revisions"] < whole.stats["revisions"]
    assert set(partial.counts) <= set(whole.counts)


def test_xml_that_is_not_a_mediawiki_export(tmp_path):
    path = tmp_path / "other.xml"
    path.write_text("<rss><channel/></rss>", encoding="utf-8")
    with pytest.raises(InputError, match=r"other\.xml, line 1: not a MediaWiki XML export: the root element is <rss>"):
        list(read_dump(path))


def test_changed_lines_skip_the_common_head_and_tail():
    assert changed_lines("a\nb\nc\nd", "a\nB\nc\nd") == (["b"], ["B"])
    assert changed_lines("a\nb\nc\nd\ne", "a\nB\nc\nD\ne") == (["b", "d"], ["B", "D"])
    assert changed_lines("x\ny", "y\nx") == ([], [])  # moved lines are not edits
    assert changed_lines("same", "same") == ([], [])
    assert changed_lines("a\nb", "a\nnew\n \nb") == ([], ["new"])  # only added: no sets built, blank lines dropped
    assert changed_lines("a\nold\nb", "a\nb") == (["old"], [])


def test_sentence_filters():
    miner, text = WikiEditMiner("en"), SentenceCache(LanguageText("en"))
    assert miner.word_pairs(text, "The cat sat on teh mat.", "The cat sat on the mat.") == [("the", "teh")]
    assert miner.word_pairs(text, "It cost 10 dollars.", "It cost 12 dollars.") == []  # digits only
    assert miner.word_pairs(text, "a b c d e f g h", "i j k l m n o p") == []  # > 30 % and > 4 tokens
    assert miner.word_pairs(text, "Hello", "Helo") == []  # a one-token "sentence"


def test_real_typos_are_found_in_the_english_history():
    rows = dictionary_rows("en", [WikiEditMiner("en").mine_file(corpus("mediawiki/enwiki-20140102.tiny.xml.gz"))])
    pairs = {(r["noisy"], r["correct"]): r for r in rows}
    assert pairs["assinated", "assassinated"]["likely_typo"]  # distance 3 in a 12-letter word
    assert pairs["condened", "condemned"]["likely_typo"] and pairs["anarchim", "anarchism"]["likely_typo"]
    assert pairs["Libertarian", "libertarian"]["case_only"] and not pairs["Libertarian", "libertarian"]["likely_typo"]
    assert pairs["anomy", "anomie"]["real_word"]
    for row in rows:
        assert row["examples"] and abs(sum(r["probability"] for r in rows if r["correct"] == row["correct"]) - 1) < 1e-9


def test_checkpoints_resume_and_parallel_runs_agree(tmp_path, monkeypatch):
    dumps = [corpus("mediawiki/enwiki-20140102.tiny.xml.gz"), corpus("mediawiki/hiwiki_main_page_13revs.xml")]
    miner = WikiEditMiner("en")
    first, run = mine_dumps(miner, dumps, tmp_path / "ck", progress=False)
    assert run["files_resumed"] == 0 and len(list((tmp_path / "ck").iterdir())) == 2
    monkeypatch.setattr(WikiEditMiner, "mine_file", lambda *a, **k: pytest.fail("checkpoint not used"))
    again, run = mine_dumps(miner, dumps, tmp_path / "ck", progress=False)
    assert run["files_resumed"] == 2
    assert dictionary_rows("en", again) == dictionary_rows("en", first)
    monkeypatch.undo()
    parallel, _ = mine_dumps(miner, dumps, tmp_path / "ck2", num_proc=2, progress=False)
    assert dictionary_rows("en", parallel) == dictionary_rows("en", first)


def test_an_interrupted_run_keeps_finished_files(tmp_path, monkeypatch):
    dumps = [corpus("mediawiki/pywikibot_article-pear_export-0.3.xml"), corpus("mediawiki/enwiki-20140102.tiny.xml.gz")]
    original = WikiEditMiner.mine_file

    def interrupted(self, path, on_page=None):
        if path.name.endswith(".gz"):
            raise KeyboardInterrupt
        return original(self, path, on_page)

    monkeypatch.setattr(WikiEditMiner, "mine_file", interrupted)
    with pytest.raises(KeyboardInterrupt):
        mine_dumps(WikiEditMiner("en"), dumps, tmp_path / "ck", progress=False)
    assert len(list((tmp_path / "ck").iterdir())) == 1  # the first file's result survived


def test_unsupported_language():
    with pytest.raises(ConfigError, match="language 'xx' is not supported for mining; supported: .*th"):
        WikiEditMiner("xx")


def test_written_dictionary_loads_with_datasets_and_as_a_noise_dictionary(tmp_path):
    mined = mine_wikiedits([corpus("mediawiki/enwiki-20140102.tiny.xml.gz")], "en", tmp_path / "ck", progress=False)
    write_dictionary(tmp_path / "out", mined)
    loaded = datasets.load_dataset(str(tmp_path / "out"), "wikiedits-en", split="train")
    assert loaded.num_rows == len(mined.rows) and "likely_typo" in loaded.column_names
    typos = load_dictionary(str(tmp_path / "out"), lang="en", keep={"likely_typo": True})
    assert "assassinated" in typos and "anomie" not in typos
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "stickland-etal-2023-robustification" in card and "config_name: wikiedits-en" in card


def test_mine_then_build_from_the_command_line(tmp_path):
    mined = noisecraft("mine", "wikiedits", str(corpus("mediawiki/enwiki-20140102.tiny.xml.gz")),
                       str(corpus("mediawiki/pywikibot_article-pyrus.xml.bz2")), "--lang", "en",
                       "--out", str(tmp_path / "dict"), "--no-progress")
    assert mined.returncode == 0, mined.stderr
    assert "likely_typos" in mined.stdout and not (tmp_path / "dict" / ".checkpoints").exists()
    built = noisecraft("build", "--source", "demo", "--noise",
                       f"wikiedit(dictionary={tmp_path / 'dict'}, only_typos=false, rate=0.5)", "--config-name",
                       "demo-en-wikiedit", "--out", str(tmp_path / "set"), "--no-progress")
    assert built.returncode == 0, built.stderr
    assert "demo-en-wikiedit" in built.stdout


def test_a_corrupt_bz2_dump_that_gives_nothing_is_an_error(tmp_path):
    """One bz2 block: a flipped byte makes the whole file unreadable, so there is nothing to keep."""
    data = bytearray(corpus("mediawiki/pywikibot_article-pyrus.xml.bz2").read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.xml.bz2"
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"bad\.xml\.bz2: cannot decompress it as bz2") as caught:
        WikiEditMiner("en").mine_file(bad)
    assert not isinstance(caught.value, DumpError)


def test_a_dump_damaged_after_its_start_keeps_what_came_before(tmp_path):
    """Corruption past the first pages: a DumpError (reported, not fatal) and the pages before it mined."""
    xml = gzip.decompress(corpus("mediawiki/enwiki-20140102.tiny.xml.gz").read_bytes())
    cut = tmp_path / "cut.xml"
    cut.write_bytes(xml[: len(xml) * 2 // 3])
    result = WikiEditMiner("en").mine_file(cut)
    assert result.error and result.error.startswith(f"{cut}, line ") and "XML error (truncated or corrupt dump?)" in result.error
    assert result.stats["pages"] == 1 and result.counts  # AccessibleComputing whole, Anarchism cut
    assert result.compression == "plain" and result.encoding == "utf-8 (XML default)"  # no <?xml ...?> declaration


def test_non_utf8_bytes_in_a_dump_are_reported(tmp_path):
    path = tmp_path / "latin1.xml"
    path.write_bytes(EXPORT.replace("opend", "op\xe9nd").encode("latin-1"))
    result = WikiEditMiner("en").mine_file(path)
    assert result.error and "latin1.xml, line 4" in result.error and "XML error" in result.error


def test_a_tar_archive_is_named_as_such():
    with pytest.raises(InputError, match=r"hiwiki\.tar\.gz: a tar archive, not an XML dump"):
        list(read_dump(corpus("mediawiki/hiwiki.tar.gz")))


def test_bad_input_in_a_worker_process_reaches_the_caller(tmp_path):
    dumps = [corpus("mediawiki/pywikibot_article-pear_export-0.3.xml"), corpus("mediawiki/hiwiki.tar.gz")]
    with pytest.raises(InputError, match="a tar archive"):
        mine_dumps(WikiEditMiner("en"), dumps, tmp_path / "ck", num_proc=2, progress=False)


# --- foreign, broken and unreadable inputs --------------------------------------------------------


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


@pytest.mark.parametrize(("name", "data", "problem"), [
    ("noise.xml", random.Random(0).randbytes(4096), r", line 1: not a MediaWiki XML export: not XML \(not well-formed"),
    ("prose.txt", "It was the best of times,\nit was the worst of times.\n", r", line 1: not a MediaWiki XML export: not XML"),
    ("empty.xml", b"", r", line 1: not a MediaWiki XML export: empty file"),
    ("page.html", "<!DOCTYPE html>\n<html><body>hi</body></html>",
     r", line 2: not a MediaWiki XML export: the root element is <html>"),
    ("noise.xml.gz", b"\x1f\x8b" + random.Random(1).randbytes(300), r": cannot decompress it as gzip"),
    ("noise.xml.bz2", b"BZh9" + random.Random(1).randbytes(300), r": cannot decompress it as bz2"),
], ids=["random-bytes", "prose", "empty", "html", "random-gzip", "random-bz2"])
def test_what_is_not_a_dump_is_a_one_line_input_error(tmp_path, name, data, problem):
    path = _write(tmp_path, name, data)
    with pytest.raises(InputError, match=rf"{name.replace('.', '[.]')}{problem}") as caught:
        WikiEditMiner("en").mine_file(path)
    assert not isinstance(caught.value, DumpError) and "\n" not in str(caught.value)


def test_unreadable_and_missing_dumps(tmp_path):
    with pytest.raises(InputError, match=r"nothere\.xml: cannot read dump: No such file or directory"):
        mine_wikiedits([tmp_path / "nothere.xml"], "en", tmp_path / "ck", progress=False)
    folder = tmp_path / "folder.xml"
    folder.mkdir()
    with pytest.raises(InputError, match=r"folder\.xml: cannot read dump: Is a directory"):
        list(read_dump(folder))


def test_a_namespace_that_is_not_a_number(tmp_path):
    path = _write(tmp_path, "ns.xml", EXPORT.replace("<ns>1</ns>", "<ns>Talk</ns>"))
    with pytest.raises(DumpError, match=r"ns\.xml, line 8: <ns> is 'Talk', not a namespace number \(page 'Talk:Bridge'\)"):
        list(read_dump(path))
    result = WikiEditMiner("en").mine_file(path)  # the pages before it are kept, the damage reported
    assert dict(result.counts) == {("opened", "opend"): 1} and "not a namespace number" in (result.error or "")


def test_deeply_nested_xml_is_refused_with_its_line(tmp_path):
    depth = 100_000
    path = _write(tmp_path, "deep.xml", "<mediawiki>\n<page><title>A</title><ns>0</ns>\n" + "<a>" * depth + "</a>" * depth
                  + "</page></mediawiki>")
    with pytest.raises(DumpError, match=rf"deep\.xml, line 3: elements nested more than {MAX_DEPTH} deep"):
        list(read_dump(path))


def test_truncated_plain_xml_names_the_line(tmp_path):
    path = _write(tmp_path, "cut.xml", EXPORT[: EXPORT.index("It is red.</text></revision>\n    <revision><id>12")])
    items = []
    with pytest.raises(DumpError, match=r"cut\.xml, line 5: XML error \(truncated or corrupt dump\?\): no element found"):
        items.extend(read_dump(path))
    assert [type(i).__name__ for i in items] == ["PageEnd", "Revision"]  # what came before the cut


def test_the_encoding_and_compression_of_each_dump_are_reported(tmp_path):
    dumps = [corpus("mediawiki/enwiki-20140102.tiny.xml.gz"), corpus("mediawiki/pywikibot_article-pyrus-utf16.xml"),
             corpus("mediawiki/pywikibot_article-pyrus.xml.bz2")]
    reader = DumpReader(dumps[1])  # big-endian UTF-16 without a byte-order mark, declared
    assert sum(isinstance(item, Revision) for item in reader) == 6 and reader.encoding == "utf-16 (declared)"
    bom = DumpReader(_write(tmp_path, "bom.xml", EXPORT.encode("utf-16")))
    assert sum(isinstance(item, Revision) for item in bom) == 5 and bom.encoding == "utf-16 (byte-order mark)"
    mined = mine_wikiedits(dumps, "en", tmp_path / "ck", progress=False)
    assert mined.stats["read_as"] == ("enwiki-20140102.tiny.xml.gz: gzip, utf-8 (XML default); "
                                      "pywikibot_article-pyrus-utf16.xml: plain, utf-16 (declared); "
                                      "pywikibot_article-pyrus.xml.bz2: bz2, utf-8 (XML default)")
    resumed = mine_wikiedits(dumps, "en", tmp_path / "ck", progress=False)  # from checkpoints: still said
    assert resumed.stats["read_as"] == mined.stats["read_as"] and resumed.stats["files_resumed"] == 3


def test_the_same_dump_listed_twice_is_mined_once(tmp_path):
    dump = corpus("mediawiki/enwiki-20140102.tiny.xml.gz")
    link = tmp_path / "link.xml.gz"
    os.symlink(dump, link)
    once = mine_wikiedits([dump], "en", tmp_path / "ck1", progress=False)
    thrice = mine_wikiedits([dump, dump, link], "en", tmp_path / "ck2", progress=False)
    assert thrice.rows == once.rows and thrice.stats["files"] == 1 and thrice.stats["revisions"] == once.stats["revisions"]
    assert thrice.inputs == [dump.name] and thrice.command.count(dump.name) == 1
    assert thrice.stats["repeated_inputs"] == f"{dump.name} (listed twice); link.xml.gz (same file as {dump.name})"


@pytest.mark.parametrize("num_proc", [1, 2])
def test_keep_going_skips_what_is_not_a_dump_and_says_so(tmp_path, num_proc):
    good = corpus("mediawiki/enwiki-20140102.tiny.xml.gz")
    noise = _write(tmp_path, "noise.xml", random.Random(0).randbytes(2048))
    tar = corpus("mediawiki/hiwiki.tar.gz")
    dumps = [good, noise, tar, tmp_path / "missing.xml"]
    with pytest.raises(InputError, match=r"noise\.xml, line 1: not a MediaWiki XML export"):
        mine_wikiedits(dumps, "en", tmp_path / "ck", num_proc, progress=False)
    mined = mine_wikiedits(dumps, "en", tmp_path / "ck", num_proc, progress=False, keep_going=True)
    alone = mine_wikiedits([good], "en", tmp_path / "ck-alone", progress=False)
    assert mined.rows == alone.rows and mined.inputs == [good.name] and mined.stats["files"] == 1
    assert mined.stats["skipped_files"] == (
        "noise.xml, line 1: not a MediaWiki XML export: not XML (not well-formed (invalid token)); "
        "hiwiki.tar.gz: a tar archive, not an XML dump: extract the .xml file(s) from it first; "
        "missing.xml: cannot read dump: No such file or directory")
    assert len(list((tmp_path / "ck").iterdir())) == 1  # skipped files leave no checkpoint: a rerun tries them again
    write_dictionary(tmp_path / "out", mined)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "skipped_files: noise.xml, line 1: not a MediaWiki XML export" in card and str(tmp_path) not in card


def test_an_unreadable_checkpoint_is_mined_again(tmp_path):
    dump = corpus("mediawiki/pywikibot_article-pear_export-0.3.xml")
    miner = WikiEditMiner("en")
    first, _ = mine_dumps(miner, [dump], tmp_path / "ck", progress=False)
    [checkpoint] = (tmp_path / "ck").iterdir()
    checkpoint.write_text('{"counts": [[', encoding="utf-8")
    again, run = mine_dumps(miner, [dump], tmp_path / "ck", progress=False)
    assert run["files_resumed"] == 0 and dictionary_rows("en", again) == dictionary_rows("en", first)


def test_namespaces_are_in_the_regenerate_command(tmp_path):
    mined = mine_wikiedits([corpus("mediawiki/pywikibot_pair_export-0.10.xml")], "en", tmp_path / "ck", progress=False,
                           namespaces=(0, 1))
    assert mined.command[-6:] == ["--lang", "en", "--namespaces", "0", "1", "--out", "OUT"][-6:]


# --- Thai, Chinese and Japanese: mined on the segmenter's words, the words wikiedit@2 looks up ----------------------

THAI_TYPO = "'''รัฐบาล'''ได้รับรายงานฉบับแรกในปีนั้นและส่งต่อให้[[รัฐสภา]]พิจรณา"  # พิจารณา ("consider") missing า
CHINESE_TYPO = "'''政府'''在第一次会意上通过了这份[[报告]]。它很长。"  # 会议 ("meeting") typed as the homophone 会意


def mediawiki_export(lang: str, title: str, old: str, new: str) -> str:
    """A MediaWiki 0.10 export (the shape of ``pywikibot_pair_export-0.10.xml``) of one page whose second
    revision fixes the first."""
    revisions = []
    for number, (text, comment) in enumerate(((old, "create"), (new, "typo")), start=1):
        parent = f"\n      <parentid>{number - 1}</parentid>" if number > 1 else ""
        revisions.append(f"""    <revision>
      <id>{number}</id>{parent}
      <timestamp>2020-01-0{number}T00:00:00Z</timestamp>
      <contributor>
        <username>Editor</username>
        <id>7</id>
      </contributor>
      <comment>{comment}</comment>
      <model>wikitext</model>
      <format>text/x-wiki</format>
      <text xml:space="preserve" bytes="{len(text.encode())}">{text}</text>
    </revision>""")
    return f"""<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/" version="0.10" xml:lang="{lang}">
  <siteinfo>
    <sitename>Wikipedia</sitename>
    <dbname>{lang}wiki</dbname>
    <namespaces>
      <namespace key="0" case="first-letter" />
      <namespace key="1" case="first-letter">Talk</namespace>
    </namespaces>
  </siteinfo>
  <page>
    <title>{title}</title>
    <ns>0</ns>
    <id>1</id>
{chr(10).join(revisions)}
  </page>
</mediawiki>
"""


SEGMENTED_EXPORTS = {
    # the package of the segmenter, the page title, the old and new revisions, and the (correct, noisy) pair
    "th": ("pythainlp", "รัฐสภา", THAI_TYPO, THAI_TYPO.replace("พิจรณา", "พิจารณา"), ("พิจารณา", "พิจรณา")),
    "zh": ("jieba", "政府", CHINESE_TYPO, CHINESE_TYPO.replace("会意", "会议"), ("会议", "会意")),
}


def _segmented_export(tmp_path: Path, lang: str) -> tuple[Path, tuple[str, str]]:
    package, title, old, new, pair = SEGMENTED_EXPORTS[lang]
    pytest.importorskip(package)
    return _write(tmp_path, f"{lang}wiki.xml", mediawiki_export(lang, title, old, new)), pair


@pytest.mark.parametrize("lang", ["th", "zh"])
def test_a_thai_or_chinese_typo_fix_is_mined_as_a_whole_segmented_word(tmp_path, lang):
    from noisecraft.core.text_units import segmenter, word_spans

    dump, (correct, noisy) = _segmented_export(tmp_path, lang)
    result = WikiEditMiner(lang).mine_file(dump)
    assert dict(result.counts) == {(correct, noisy): 1}  # per character it was one character pair
    [example] = result.examples[correct, noisy]
    after = example["after"]
    assert len(correct) > 1 and correct in [after[a:b] for a, b in word_spans(after, lang)]  # a whole word
    assert noisy in [example["before"][a:b] for a, b in word_spans(example["before"], lang)]
    [row] = dictionary_rows(lang, [result])
    assert row["likely_typo"] and row["distance"] == 1
    assert WikiEditMiner(lang).params()["segmenter"] == segmenter(lang).name


def test_a_thai_sentence_without_spaces_is_not_too_short():
    """A Thai sentence is one regex token (no spaces): the quick filter must not call it a one-token sentence."""
    pytest.importorskip("pythainlp")
    before, after = "รัฐบาลได้รับรายงานฉบับแรกในปีนั้นและส่งต่อให้รัฐสภาพิจรณา", "รัฐบาลได้รับรายงานฉบับแรกในปีนั้นและส่งต่อให้รัฐสภาพิจารณา"
    assert len(tokenize(after)) == 1
    assert WikiEditMiner("th").word_pairs(SentenceCache(LanguageText("th")), before, after) == [("พิจารณา", "พิจรณา")]


def test_the_segmenter_is_in_the_params_stats_card_and_checkpoint_key(tmp_path):
    from noisecraft.core.text_units import segmenter

    dump, _ = _segmented_export(tmp_path, "zh")
    mined = mine_wikiedits([dump], "zh", tmp_path / "ck", progress=False)
    name = segmenter("zh").name
    assert name.startswith("jieba 0.") and mined.params["segmenter"] == mined.stats["segmenter"] == name
    assert name in mined.description
    write_dictionary(tmp_path / "out", mined)
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "segmenter" in card and "jieba" in card
    english = mine_wikiedits([corpus("mediawiki/pywikibot_article-pear_export-0.3.xml")], "en", tmp_path / "ck-en",
                             progress=False)
    assert "segmenter" not in english.params and "segmenter" not in english.stats  # Moses languages: as before


def test_without_the_segmenter_mining_is_per_character_and_says_so(tmp_path, request):
    dump, _ = _segmented_export(tmp_path, "zh")
    segmented = checkpoint_path(tmp_path, dump, WikiEditMiner("zh"))
    request.getfixturevalue("without_segmenters")
    assert dict(WikiEditMiner("zh").mine_file(dump).counts) == {("议", "意"): 1}
    mined = mine_wikiedits([dump], "zh", tmp_path / "ck", progress=False)
    assert mined.stats["segmenter"].startswith("per character (jieba not installed")
    assert checkpoint_path(tmp_path, dump, WikiEditMiner("zh")) != segmented  # never resumed across segmenters


SEGMENTED_QUESTIONS = {
    # (a question with the word, a question where it is only inside a longer word), the answer in the context
    "th": ("รัฐสภาพิจารณารายงานฉบับนี้เมื่อใด", "ใครเป็นผู้พิจารณารายงาน", "รัฐสภาพิจารณารายงานในปี 2010", "2010"),
    "zh": ("第一次会议在哪里举行？", "谁是会议室的主人？", "第一次会议在北京举行。", "北京"),
}


@pytest.mark.parametrize("lang", ["th", "zh"])
def test_a_challenge_set_built_from_the_mined_dictionary_replaces_the_word(tmp_path, lang):
    """Mine, write, build XQuAD-format questions with wikiedit@2: the segmented word gets its mined typo;
    where the same letters are only part of a longer word (ผู้พิจารณา, 会议室), nothing matches."""
    import json

    import pyarrow.parquet as pq

    from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
    from noisecraft.dataset.repo import DatasetRepo
    from noisecraft.noise_models.natural import NO_DICTIONARY_WORD

    dump, (correct, noisy) = _segmented_export(tmp_path, lang)
    write_dictionary(tmp_path / "dict", mine_wikiedits([dump], lang, tmp_path / "ck", progress=False))
    edited, inside, context, answer = SEGMENTED_QUESTIONS[lang]
    qas = [{"id": f"q{i}", "question": q, "answers": [{"text": answer, "answer_start": context.index(answer)}]}
           for i, q in enumerate((edited, inside))]
    squad = {"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}
    data = _write(tmp_path, f"xquad.{lang}.json", json.dumps(squad, ensure_ascii=False))
    with DatasetRepo(tmp_path / "set", "1.0.0") as repo:
        built = build_config(repo, ConfigRequest(source="xquad", lang=lang, data_file=data,
                                                 noise=f"wikiedit(dictionary={tmp_path / 'dict'}, rate=0.1)"),
                             progress=False)
        write_card(repo)
    [row] = [row for path in built.paths for row in pq.read_table(path).to_pylist()]
    assert row["original_question"] == edited and row["question"] == edited.replace(correct, noisy)
    assert built.stats["dropped"] == {NO_DICTIONARY_WORD: 1}  # the word inside a longer word is not a match
    card = (tmp_path / "set" / "README.md").read_text(encoding="utf-8")
    assert SEGMENTED_EXPORTS[lang][0] in card  # the card names the segmenter


def test_markup_is_stripped_by_mwparserfromhell_with_references_dropped():
    from noisecraft.mining.wiki_text import strip_markup

    text = "The [[bridge (Lisbon)|bridge]] was ''opened''<ref>x</ref> in {{as of|1937}}1937&nbsp;.<ref name=y/>"
    assert strip_markup(text) == "The bridge was opened in 1937\xa0."
    assert strip_markup("== Heading ==\n\n\n\n<b>bold</b> [http://x.org title]<!-- c -->") == " Heading \n\nbold title"


def test_moses_non_breaking_prefixes_do_not_end_a_sentence():
    assert LanguageText("en").sentences("Dr. Smith met No. 5 and Mr. X today. He left.") == \
        ["Dr. Smith met No. 5 and Mr. X today.", "He left."]
    assert LanguageText("de").sentences("Er kam z.B. spät. Sie nicht.") == ["Er kam z.B. spät.", "Sie nicht."]
    # Turkish has no Moses list (sacremoses' reader would give English's): "Dr." ends a sentence there
    assert LanguageText("tr").sentences("Dr. Ali geldi.") == ["Dr.", "Ali geldi."]
    assert LanguageText("tr")._prefixes == frozenset() and "No" in LanguageText("en")._prefixes


def test_moses_tokens_are_not_xml_escaped():
    """The miner's words are the text's words: Moses' XML escaping (``&apos;``, ``&amp;``) is off."""
    assert LanguageText("en").tokens("Dr. Smith's R&D cost 3,000 dollars.") == \
        ["Dr.", "Smith", "'s", "R", "&", "D", "cost", "3,000", "dollars", "."]
    assert LanguageText("fr").tokens("L'eau d'été.") == ["L'", "eau", "d'", "été", "."]


# --- the speed-ups keep the output: each shortcut against the slow path it replaces ---------------------------

@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=30), st.lists(st.sampled_from("abcde"), max_size=30))
def test_the_compiled_sequence_matcher_gives_difflibs_opcodes(a, b):
    import difflib

    from noisecraft.mining.wikiedits import SequenceMatcher

    compiled = pytest.importorskip("cydifflib", reason="without cydifflib the miner uses difflib itself")
    assert SequenceMatcher is compiled.SequenceMatcher
    assert [tuple(op) for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()] == \
        difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


@pytest.mark.parametrize(("name", "lang", "sha256"), [
    # mined before the speed-ups (mwparserfromhell's node tree, sacremoses as shipped, difflib): the same bytes since
    ("enwiki-20140102.tiny.xml.gz", "en", "bab3a360d534a1472f7ef889c21454481535ea1f5defee51aff454a2d20bcaf6"),
    ("hiwiki_kahani_94revs.xml", "hi", "3be17d0e13fac1f3abe9e97bd40f6186b1f8b30e9e9e187143ce94dfc1d8b93b"),
])
def test_the_mined_result_of_the_real_dumps_is_unchanged_byte_for_byte(name, lang, sha256):
    import hashlib
    import json

    result = WikiEditMiner(lang).mine_file(corpus(f"mediawiki/{name}"))
    data = json.dumps(result.to_json(), ensure_ascii=False).encode("utf-8")
    assert hashlib.sha256(data).hexdigest() == sha256, "the mined pairs, counts, examples or stats changed"


@settings(max_examples=300, deadline=None)
@given(st.text("abc", max_size=8), st.lists(st.text("abcd", max_size=8), min_size=1, max_size=5),
       st.sampled_from([0.0, 0.5]))
def test_the_direct_similarity_loop_picks_what_extract_one_picks(query, choices, cutoff):
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    from noisecraft.mining.wikiedits import _most_similar

    found = process.extractOne(query, choices, scorer=Levenshtein.normalized_similarity, score_cutoff=cutoff or None)
    assert _most_similar(query, choices, cutoff) == (found[0] if found else None)  # ties: the first, as extractOne


def test_the_per_page_memos_change_nothing(monkeypatch):
    """Reverts in the real history hit the line-pair and sentence-pair memos; computing everything again gives the
    same result, byte for byte."""
    import json

    dump = corpus("mediawiki/enwiki-20140102.tiny.xml.gz")
    hits = []
    remember = SentenceCache.remember

    def counting(self, table, key, make):
        hits.append(key in table and table in (self.line_pairs, self.word_pairs))
        return remember(self, table, key, make)

    monkeypatch.setattr(SentenceCache, "remember", counting)
    memoised = WikiEditMiner("en").mine_file(dump)
    assert sum(hits) > 10
    monkeypatch.setattr(SentenceCache, "remember", lambda self, table, key, make: make())
    computed = WikiEditMiner("en").mine_file(dump)
    assert json.dumps(memoised.to_json(), ensure_ascii=False) == json.dumps(computed.to_json(), ensure_ascii=False)


_OLD_SENTENCE_END = r"[.!?।॥؟]+[\"'”’»)\]]*\s+|[。！？]+[”’」』）]*"
_OLD_LAST_WORD = r"(\S+)\.[\"'”’»)\]]*$"


def _sentences_as_first_written(text: str, prefixes: frozenset[str]) -> list[str]:
    """LanguageText.sentences with the patterns it was first written with: an alternation at the start of the stop
    pattern, and a search over the whole candidate for its last word."""
    import re

    out = []
    for line in text.splitlines():
        start = 0
        for match in re.finditer(_OLD_SENTENCE_END, line):
            candidate = line[start : match.end()].strip()
            last = re.search(_OLD_LAST_WORD, candidate) if "." in match.group() else None
            if last and (last.group(1) in prefixes or len(last.group(1)) == 1):
                continue
            if candidate:
                out.append(candidate)
            start = match.end()
        if line[start:].strip():
            out.append(line[start:].strip())
    return out


SENTENCE_PIECES = [".", "..", "!", "?", "।", "॥", "؟", "。", "！", "？", "\"", "'", "”", "’", "»", ")", "]", "」", "』",
                   "）", " ", "  ", "\t", "\n", "\u2028", "\x1c", "\xa0", "a", "Dr", "No", "e.g", "U.S", "x", "Word",
                   "日本", "हिंदी", "3", "(", "[", "-"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["en", "de", "hi", "zh"]), st.lists(st.sampled_from(SENTENCE_PIECES), max_size=30).map("".join))
@example("en", "See a\tDr. Who here. Then\u2003e.g. this, and\xa0x. End")  # the last word after other whitespace
@example("zh", "他说。」好！”Yes. No.」 x")
def test_sentences_are_split_where_the_first_patterns_split_them(lang, text):
    ours = LanguageText(lang)
    assert ours.sentences(text) == _sentences_as_first_written(text, ours._prefixes)


def test_sentences_of_every_line_of_the_real_dumps_are_unchanged():
    from noisecraft.mining.wiki_text import strip_markup

    for name, lang in (("enwiki-20140102.tiny.xml.gz", "en"), ("hiwiki_kahani_94revs.xml", "hi")):
        ours = LanguageText(lang)
        lines = {line for item in read_dump(corpus(f"mediawiki/{name}")) if isinstance(item, Revision) and item.text
                 for line in item.text.split("\n")}
        for line in lines:
            text = strip_markup(line)
            assert ours.sentences(text) == _sentences_as_first_written(text, ours._prefixes), line[:200]


def _word_pairs_in_the_first_order(miner: WikiEditMiner, text: LanguageText, before: str, after: str):
    """WikiEditMiner._word_pairs as first written: the regex tokens' bounds before Moses, then difflib."""
    import difflib

    from rapidfuzz.distance import Levenshtein

    from noisecraft.mining.wikiedits import _is_digits_or_punctuation

    if Levenshtein.distance(before, after) > miner.max_relative_distance * min(len(before), len(after)):
        return []
    quick_a, quick_b = tokenize(before), tokenize(after)
    fewest = 1 if text.segmented else miner.min_tokens
    if not (fewest <= len(quick_a) and fewest <= len(quick_b)) or len(quick_a) > 2 * miner.max_tokens or \
            len(quick_b) > 2 * miner.max_tokens or len(set(quick_a) ^ set(quick_b)) > 4 * miner.max_differing_tokens:
        return []
    a, b = text.tokens(before), text.tokens(after)
    if not (miner.min_tokens <= len(a) <= miner.max_tokens and miner.min_tokens <= len(b) <= miner.max_tokens):
        return []
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not 0 < sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in ops) <= miner.max_differing_tokens:
        return []
    return [(correct, noisy) for op, i1, i2, j1, j2 in ops if op == "replace" and i2 - i1 == j2 - j1
            for noisy, correct in zip(a[i1:i2], b[j1:j2])
            if noisy != correct and not _is_digits_or_punctuation(noisy) and not _is_digits_or_punctuation(correct)]


WORD_PIECES = ["a", "b", "cat", "cta", "the", "teh", "a_b", "a'b", "it's", "3", "3.5", ".", ",", "'", "_", "-", " ", " ",
               " ", "é", "e\u0301", "U.S.", "Dr.", "!", "(", "हिंदी"]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["en", "fr", "hi"]), st.lists(st.sampled_from(WORD_PIECES), min_size=1, max_size=14),
       st.lists(st.tuples(st.integers(0, 13), st.sampled_from(WORD_PIECES)), max_size=3))
@example("en", ["x_yzzzz"], [(0, "x_yzzzy")])  # one regex token (too few), three Moses tokens: not kept
def test_word_pairs_are_what_the_first_order_of_filters_kept(lang, pieces, edits):
    """The filters now run cheapest first (Moses before the regex tokens' bounds); the kept pairs are the same."""
    edited = list(pieces)
    for index, piece in edits:
        edited[index % len(edited)] = piece
    before, after = "".join(pieces), "".join(edited)
    miner, text = WikiEditMiner(lang), LanguageText(lang)
    assert miner._word_pairs(SentenceCache(text), before, after) == \
        _word_pairs_in_the_first_order(miner, text, before, after)


def _changed_lines_by_lists(old: str, new: str) -> tuple[list[str], list[str]]:
    """changed_lines as first written: both revisions split into lines, compared line by line from each end."""
    a, b = old.split("\n"), new.split("\n")
    head, limit = 0, min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a, b = a[head : len(a) - tail], b[head : len(b) - tail]
    if not a or not b:
        return [line for line in a if line.strip()], [line for line in b if line.strip()]
    in_a, in_b = set(a), set(b)
    return [line for line in a if line not in in_b and line.strip()], [line for line in b if line not in in_a and line.strip()]


def test_changed_lines_found_on_the_text_are_those_of_the_lists_of_lines_for_every_short_text():
    import itertools

    texts = ["".join(chars) for size in range(5) for chars in itertools.product("ab\n ", repeat=size)]
    for old in texts:
        for new in texts:
            assert changed_lines(old, new) == _changed_lines_by_lists(old, new), (old, new)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "\n", " ", "ab\n", "\n\n", "é", "日本\n"]), max_size=20).map("".join),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 3), st.sampled_from(["", "a", "\n", "b\n", "\n\n"])),
                max_size=4))
def test_changed_lines_found_on_the_text_are_those_of_the_lists_of_lines(old, edits):
    new = list(old)
    for at, length, text in edits:
        new[at : at + length] = text
    assert changed_lines(old, "".join(new)) == _changed_lines_by_lists(old, "".join(new))


def test_changed_lines_of_the_real_histories_are_those_of_the_lists_of_lines():
    for name in ("enwiki-20140102.tiny.xml.gz", "hiwiki_kahani_94revs.xml"):
        texts = [item.text for item in read_dump(corpus(f"mediawiki/{name}")) if isinstance(item, Revision) and item.text]
        for old, new in zip(texts, texts[1:]):
            assert changed_lines(old, new) == _changed_lines_by_lists(old, new)
