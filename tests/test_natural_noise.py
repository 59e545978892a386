"""Natural-noise dictionaries and the models that inject them."""

from __future__ import annotations

import math
import os
import re
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
from noisecraft.core.edits import Noised, apply_edits
from noisecraft.core.seeding import ExampleRng
from noisecraft.core.text_units import match_case, word_spans
from noisecraft.dataset import noise_dictionary
from noisecraft.dataset.noise_dictionary import NoiseDictionary, load_dictionary, with_probabilities
from noisecraft.dataset.repo import DatasetRepo, card_with_manifest
from noisecraft.errors import ConfigError, InputError
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.natural import (
    NO_DICTIONARY_WORD,
    NO_EDITABLE_WORD,
    MisspellingNoise,
    ReduplicationNoise,
    WikiEditNoise,
    WikiEditNoiseV2,
    edit_count,
    wikiedit_word_spans,
)
from noisecraft.noise_models.registry import create, parse_noise

PAIRS = "receive\trecieve\t3\nreceive\trecieve\t1\nreceive\treceeve\t1\nthe\tteh\t5\nbecause\tbecuase\t2\nof\tfo\t1\n"
#: The repository's small dictionary (read only): module level, so that hypothesis tests can use it.
NATURAL_PAIRS = Path(__file__).parent / "data" / "natural_pairs.tsv"


def one_line(exc: pytest.ExceptionInfo[BaseException]) -> str:
    """The error's message, checked to be one line (what the CLI prints)."""
    message = str(exc.value)
    assert "\n" not in message, message
    return message


def parquet_dictionary(path: Path, rows: list[dict[str, Any]], probabilities: bool = True) -> Path:
    """A dictionary parquet (``probability`` computed from the counts unless the rows bring their own)."""
    rows = [{"lang": "en", **row} for row in rows]
    pq.write_table(pa.Table.from_pylist(with_probabilities(rows) if probabilities else rows), path)
    return path


#: A data file's name as a commit writes it (the digest is not checked when a dictionary is read).
SHARD_NAME = "train-0123456789ab-00000-of-00001.parquet"


def mined_folder(root: Path, configs: dict[str, list[dict[str, Any]]], kind: str = "noise-dictionary") -> Path:
    """A folder laid out as ``noisecraft mine`` writes it: a manifest and ``<config>/train-*.parquet``."""
    for name, rows in configs.items():
        (root / name).mkdir(parents=True)
        parquet_dictionary(root / name / SHARD_NAME, rows)
    manifest = {"format": 2, "kind": kind, "version": "1.0.0",
                "configs": {name: {"spec": {}, "files": {"train": [f"{name}/{SHARD_NAME}"]}} for name in configs}}
    (root / "README.md").write_text(card_with_manifest("a card\n", manifest), encoding="utf-8")
    return root


@pytest.fixture
def tsv(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_text("# correct, noisy, count\n" + PAIRS, encoding="utf-8")
    return path


def test_tsv_dictionary_merges_pairs_and_normalises(tsv):
    dictionary = load_dictionary(str(tsv))
    forms, cumulative = dictionary.entries["receive"]
    assert forms == ("recieve", "receeve") and cumulative == pytest.approx((0.8, 1.0))
    assert len(dictionary) == 4 and "teh" not in dictionary


def test_bad_dictionaries_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("the\tteh\nonlyone\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.tsv, line 2: expected 'correct<TAB>noisy"):
        load_dictionary(str(bad))
    empty = tmp_path / "empty.tsv"
    empty.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="no usable"):
        load_dictionary(str(empty))
    with pytest.raises(ConfigError, match="neither a file, a folder nor a Hub repo id"):
        load_dictionary("missing.tsv")


@given(st.integers(min_value=0))
def test_samples_are_mined_forms(seed):
    dictionary = NoiseDictionary.from_pairs("t", [("a", "b", 1.0), ("a", "c", 3.0)])
    assert dictionary.sample("a", ExampleRng(seed)) in ("b", "c")


def test_match_case():
    assert match_case("Receive", "recieve") == "Recieve"
    assert match_case("THE", "teh") == "TEH"
    assert match_case("the", "teh") == "teh"


def test_wikiedit_reaches_the_target_rate_or_runs_out_of_candidates(tsv):
    model = WikiEditNoise(rate=0.5, dictionary=str(tsv))
    text = "The letter did not receive the stamp because of the rain"
    [noised] = model.apply(NoiseInput([text], [ExampleRng(4)]))
    assert apply_edits(text, noised.edits) == noised.text
    assert len(noised.edits) == 6  # 11 words x 0.5 -> 6, and there are 6 candidates (the x3, receive, because, of)
    assert noised.text == "Teh letter did not recieve teh stamp becuase fo teh rain"
    [few] = WikiEditNoise(rate=0.5, dictionary=str(tsv)).apply(NoiseInput(["A receive call"], [ExampleRng(1)]))
    assert len(few.edits) == 1


def test_wikiedit_respects_protected_spans(tsv):
    model = WikiEditNoise(rate=1.0, dictionary=str(tsv))
    [noised] = model.apply(NoiseInput(["the the the"], [ExampleRng(0)], protected=[[(4, 7)]]))
    assert [e.start for e in noised.edits] == [0, 8]


def test_misspelling_placement(tsv, tmp_path):
    text = "The letter did not receive the stamp because of the rain"
    function = MisspellingNoise(rate=1.0, dictionary=str(tsv), where="function").apply(NoiseInput([text], [ExampleRng(0)]))[0]
    content = MisspellingNoise(rate=1.0, dictionary=str(tsv), where="content").apply(NoiseInput([text], [ExampleRng(0)]))[0]
    assert {e.original.lower() for e in function.edits} == {"the", "because", "of"}
    assert {e.original for e in content.edits} == {"receive"}
    listed = tmp_path / "words.txt"
    listed.write_text("because\n", encoding="utf-8")
    only = MisspellingNoise(rate=1.0, dictionary=str(tsv), where="listed", word_list=str(listed))
    assert [e.replacement for e in only.apply(NoiseInput([text], [ExampleRng(0)]))[0].edits] == ["becuase"]
    with pytest.raises(ConfigError, match="no function-word list for 'xx'"):
        MisspellingNoise(dictionary=str(tsv), where="function", lang="xx")


def test_reduplication_with_and_without_mined_variants(tmp_path):
    plain = ReduplicationNoise(rate=1.0, extra_letters=2)
    [noised] = plain.apply(NoiseInput(["I love it 2day"], [ExampleRng(0)]))
    assert noised.text == "I loveee ittt 2day"  # one-letter and non-alphabetic words are left alone
    mined = tmp_path / "variants.tsv"
    mined.write_text("love\tloooove\t4\nlove\tlovvve\t1\n", encoding="utf-8")
    model = ReduplicationNoise(rate=1.0, dictionary=str(mined))
    [noised] = model.apply(NoiseInput(["Love"], [ExampleRng(0)]))
    assert noised.text in ("Loooove", "Lovvve")


def test_seed_does_not_depend_on_where_the_dictionary_lives(tsv, tmp_path):
    copy = tmp_path / "elsewhere" / "copy.tsv"
    copy.parent.mkdir()
    shutil.copy(tsv, copy)
    paths = []
    for name, dictionary in (("a", tsv), ("b", copy)):
        repo = DatasetRepo(tmp_path / name, "1.0.0")
        request = ConfigRequest(source="demo", noise=f"wikiedit(dictionary={dictionary}, rate=0.3)")
        built = build_config(repo, request, progress=False)
        write_card(repo)
        paths.append(built.path)
        assert built.stats["edit_rate"] > 0
    rows = [pq.read_table(p).to_pylist() for p in paths]
    assert [r["question"] for r in rows[0]] == [r["question"] for r in rows[1]]
    card = (tmp_path / "a" / "README.md").read_text(encoding="utf-8")
    assert re.search(r"dictionary=\S*pairs\.tsv", card) and "achieved edit rate" in card


def test_natural_noise_needs_a_dictionary():
    with pytest.raises(ConfigError, match="needs a dictionary"):
        WikiEditNoise(rate=0.1)


def test_dictionary_from_the_hub(monkeypatch):
    import datasets

    rows = [{"lang": "en", "correct": "the", "noisy": "teh", "count": 2, "probability": 1.0, "likely_typo": True},
            {"lang": "de", "correct": "der", "noisy": "dre", "count": 1, "probability": 1.0, "likely_typo": True}]
    calls = []

    def fake_load_dataset(path, name=None, **kwargs):
        calls.append((path, name))
        return datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)})

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    model = WikiEditNoise(rate=1.0, dictionary="org/wikiedits", dictionary_config="wikiedits-en")
    assert calls == [("org/wikiedits", "wikiedits-en")]
    assert model.apply(NoiseInput(["the end"], [ExampleRng(0)]))[0].text == "teh end"


def test_natural_noise_on_wikiann_tokens_keeps_tags_aligned(tmp_path):
    from noisecraft.sources.wikiann import parse_rahimi

    from conftest import corpus

    path = corpus("wikiann/rahimi_format_slices/en/test")
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("the\tteh\nof\tfo\nand\tadn\nin\tni\n", encoding="utf-8")
    repo = DatasetRepo(tmp_path / "out", "1.0.0")
    built = build_config(repo, ConfigRequest(source="wikiann", lang="en", data_file=path,
                                             noise=f"misspelling(dictionary={pairs}, rate=1)"), progress=False)
    write_card(repo)
    rows = pq.read_table(built.path).to_pylist()
    source = parse_rahimi(path, "en")
    assert len(rows) == len(source) and built.stats["rows_changed"] > 0
    for row, clean in zip(rows, source):
        assert row["ner_tags"] == clean["ner_tags"] and len(row["tokens"]) == len(clean["tokens"])


def test_only_typos_uses_the_miners_flag_when_there_is_one(tsv, tmp_path):
    assert "all pairs of the dictionary" in WikiEditNoise(dictionary=str(tsv)).describe()  # a TSV has no flags
    flagged = tmp_path / "flagged.parquet"
    import pyarrow as pa

    pq.write_table(pa.Table.from_pylist([
        {"lang": "en", "correct": "the", "noisy": "teh", "count": 3, "probability": 1.0, "likely_typo": True},
        {"lang": "en", "correct": "who", "noisy": "which", "count": 5, "probability": 1.0, "likely_typo": False},
    ]), flagged)
    typos = WikiEditNoise(dictionary=str(flagged))
    assert "pairs flagged likely_typo" in typos.describe() and "who" not in typos._dictionary
    assert "who" in WikiEditNoise(dictionary=str(flagged), only_typos=False)._dictionary


# --- 1. folders: configs and kinds ------------------------------------------------------------

EN_ROWS = [{"correct": "the", "noisy": "teh", "count": 3}, {"correct": "receive", "noisy": "recieve", "count": 2}]
DE_ROWS = [{"lang": "de", "correct": "der", "noisy": "dre", "count": 2}]


def test_a_folder_with_several_configs_needs_dictionary_config(tmp_path):
    folder = mined_folder(tmp_path / "dict", {"wikiedits-en": EN_ROWS, "wikiedits-de": DE_ROWS})
    with pytest.raises(ConfigError, match=r"holds 2 configs \(wikiedits-de, wikiedits-en\): choose one with "
                                          r"dictionary_config=") as caught:
        WikiEditNoiseV2(dictionary=str(folder))
    one_line(caught)
    english = WikiEditNoiseV2(dictionary=str(folder), dictionary_config="wikiedits-en")
    assert sorted(english._dictionary.entries) == ["receive", "the"]  # the German config is not merged in
    german = WikiEditNoise(dictionary=str(folder), dictionary_config="wikiedits-de", lang="de")
    assert sorted(german._dictionary.entries) == ["der"]
    with pytest.raises(ConfigError, match=r"has no config 'wikiedits-fr'; its configs: wikiedits-de, wikiedits-en"):
        WikiEditNoiseV2(dictionary=str(folder), dictionary_config="wikiedits-fr")


def test_a_folder_with_one_config_and_a_config_folder_load_as_they_are(tmp_path):
    folder = mined_folder(tmp_path / "dict", {"wikiedits-en": EN_ROWS})
    assert "the" in load_dictionary(str(folder))
    assert "the" in load_dictionary(str(folder / "wikiedits-en"))  # the config subfolder itself (no manifest)
    assert load_dictionary(str(folder), config="wikiedits-en").entries == load_dictionary(str(folder)).entries


def test_the_miners_folder_with_two_configs(tmp_path):
    """Two configs written by the real writer (``noisecraft mine ... --config-name``) into one folder."""
    from noisecraft.mining.output import MinedDictionary, write_dictionary

    for name, rows in (("typos-a", EN_ROWS), ("typos-b", [{"correct": "of", "noisy": "fo", "count": 1}])):
        mined = MinedDictionary(miner="test", lang="en", inputs=["x"], params={}, rows=with_probabilities(
            [{"lang": "en", **r} for r in rows]), columns={}, column_docs={}, stats={}, description="d",
            source_description="s", license="cc0-1.0", citation="", command=["noisecraft", "mine"], use_command="u")
        write_dictionary(tmp_path / "dict", mined, config_name=name)
    with pytest.raises(ConfigError, match=r"holds 2 configs \(typos-a, typos-b\)"):
        load_dictionary(str(tmp_path / "dict"))
    assert sorted(load_dictionary(str(tmp_path / "dict"), config="typos-b").entries) == ["of"]


def test_a_challenge_set_is_not_a_noise_dictionary(tmp_path):
    repo = DatasetRepo(tmp_path / "set", "1.0.0")
    build_config(repo, ConfigRequest(source="demo", noise="swap"), progress=False)
    write_card(repo)
    with pytest.raises(ConfigError, match=r"set holds a challenge-set dataset \(its manifest's kind is 'challenge-set'\), "
                                          r"not a noise dictionary") as caught:
        WikiEditNoiseV2(dictionary=str(tmp_path / "set"))
    one_line(caught)
    (tmp_path / "set" / "README.md").unlink()  # without its manifest: its parquet lacks the dictionary columns
    with pytest.raises(ConfigError, match=r"set is not a noise dictionary: it holds no noisecraft manifest and no parquet "
                                          r"file with the columns lang, correct, noisy, count, probability"):
        WikiEditNoiseV2(dictionary=str(tmp_path / "set"))


def test_a_folder_without_manifest_or_dictionary_parquet_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"empty is not a noise dictionary: it holds no noisecraft manifest"):
        load_dictionary(str(tmp_path / "empty"))
    (tmp_path / "other" / "cfg").mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist([{"question": "q"}]), tmp_path / "other" / "cfg" / "train.parquet")
    with pytest.raises(ConfigError, match=r"other is not a noise dictionary"):
        load_dictionary(str(tmp_path / "other"))


def test_a_hub_dataset_without_dictionary_columns_or_a_config_is_a_one_line_error(monkeypatch):
    import datasets

    def not_a_dictionary(path, name=None, **kwargs):
        return datasets.DatasetDict({"validation": datasets.Dataset.from_list([{"question": "q"}])})

    monkeypatch.setattr(datasets, "load_dataset", not_a_dictionary)
    with pytest.raises(ConfigError, match=r"org/set \(split validation\) is not a noise dictionary: missing column"):
        WikiEditNoiseV2(dictionary="org/set")

    def several_configs(path, name=None, **kwargs):
        raise ValueError("Config name is missing.\nPlease pick one among the available configs: ['a', 'b']")

    monkeypatch.setattr(datasets, "load_dataset", several_configs)
    with pytest.raises(ConfigError, match=r"Config name is missing. Please pick one among the available configs: "
                                          r"\['a', 'b'\]") as caught:
        WikiEditNoiseV2(dictionary="org/dict")
    one_line(caught)


# --- 2. one weight column: count ----------------------------------------------------------------


def test_the_documented_weight_column_is_count():
    assert "The sampling weight is ``count``" in noise_dictionary.__doc__


def test_sampling_follows_count_and_probability_must_agree(tmp_path):
    good = parquet_dictionary(tmp_path / "good.parquet", [{"correct": "the", "noisy": "teh", "count": 3},
                                                          {"correct": "the", "noisy": "th", "count": 1}])
    assert load_dictionary(str(good)).weighted_forms("the") == [("teh", 0.75), ("th", 0.25)]
    rows = [{"lang": "en", "correct": "the", "noisy": "teh", "count": 3, "probability": 0.75},
            {"lang": "en", "correct": "the", "noisy": "th", "count": 1, "probability": 0.9}]
    bad = parquet_dictionary(tmp_path / "bad.parquet", rows, probabilities=False)
    with pytest.raises(InputError, match=r"bad\.parquet, row 2: probability 0\.9 contradicts the counts: count 1 of 4 "
                                         r"for 'the' gives 0\.25 \(sampling uses count") as caught:
        load_dictionary(str(bad))
    one_line(caught)


def test_probability_is_checked_per_language(tmp_path):
    """The same word in two languages: each language's counts make its own probabilities."""
    rows = [{"lang": "en", "correct": "a", "noisy": "aa", "count": 1}, {"lang": "de", "correct": "a", "noisy": "ab", "count": 3}]
    path = parquet_dictionary(tmp_path / "two.parquet", rows)
    assert load_dictionary(str(path), lang="de").weighted_forms("a") == [("ab", 1.0)]


# --- 3. bad counts and encodings --------------------------------------------------------------------


@pytest.mark.parametrize("count", ["nan", "inf", "-2", "0"])
def test_bad_tsv_counts_name_the_line(tmp_path, count):
    path = tmp_path / "counts.tsv"
    path.write_text(f"# header\nthe\tteh\t2\nof\tfo\t{count}\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"counts\.tsv, line 3: count {re.escape(str(float(count)))} must be a finite "
                                         r"positive number") as caught:
        WikiEditNoiseV2(dictionary=str(path))
    one_line(caught)


@pytest.mark.parametrize("count", [float("nan"), float("inf"), -3.0])
def test_bad_parquet_counts_name_the_row(tmp_path, count):
    rows = [{"lang": "en", "correct": "the", "noisy": "teh", "count": 2.0, "probability": 1.0},
            {"lang": "en", "correct": "of", "noisy": "fo", "count": count, "probability": 1.0}]
    path = parquet_dictionary(tmp_path / "counts.parquet", rows, probabilities=False)
    with pytest.raises(InputError, match=rf"counts\.parquet, row 2: count {re.escape(repr(count))} must be a finite "
                                         r"positive number"):
        load_dictionary(str(path))


def test_unusable_rows_are_errors_not_skipped(tmp_path):
    same = tmp_path / "same.tsv"
    same.write_text("the\tteh\nof\tof\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"same\.tsv, line 2: noisy form 'of' is the correct word itself"):
        load_dictionary(str(same))
    empty = parquet_dictionary(tmp_path / "empty.parquet", [{"correct": "the", "noisy": None, "count": 1,
                                                              "probability": 1.0}], probabilities=False)
    with pytest.raises(InputError, match=r"empty\.parquet, row 1: correct and noisy must be non-empty words"):
        load_dictionary(str(empty))


def test_a_latin1_tsv_is_a_one_line_error_with_the_line(tmp_path):
    path = tmp_path / "latin1.tsv"
    path.write_bytes("the\tteh\t1\nof\tfo\t1\ncaf\u00e9\tcafe\t2\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin1\.tsv, line 3: not UTF-8 \(byte 0xe9\): save the dictionary as "
                                         r"UTF-8") as caught:
        WikiEditNoiseV2(dictionary=str(path))
    one_line(caught)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__  # no decoder traceback behind it


def test_a_utf8_bom_and_crlf_line_ends_are_read(tmp_path):
    path = tmp_path / "windows.tsv"
    path.write_bytes("\ufeffcaf\u00e9\tcaffe\t2\r\nthe\tteh\r\n".encode("utf-8"))
    assert load_dictionary(str(path)).entries == {"caf\u00e9": (("caffe",), (1.0,)), "the": (("teh",), (1.0,))}


# --- 4. languages, and a dictionary that matched nothing ---------------------------------------------


def test_a_dictionary_without_the_noise_language_names_its_languages(tmp_path):
    rows = [*EN_ROWS, {"lang": "hi", "correct": "\u0939\u0948", "noisy": "\u0939\u0947", "count": 1}]
    path = parquet_dictionary(tmp_path / "multi.parquet", rows)
    with pytest.raises(ConfigError, match=r"multi\.parquet has no row in language 'de'; its language\(s\): en, hi") as caught:
        WikiEditNoiseV2(dictionary=str(path), lang="de")
    one_line(caught)
    assert len(WikiEditNoiseV2(dictionary=str(path), lang="hi")._dictionary) == 1
    assert "the" in WikiEditNoiseV2(dictionary=str(NATURAL_PAIRS), lang="de")._dictionary  # a TSV serves any language


def test_only_typos_with_no_flagged_row_says_so(tmp_path):
    rows = [{"correct": "who", "noisy": "which", "count": 5, "likely_typo": False}]
    path = parquet_dictionary(tmp_path / "flags.parquet", rows)
    with pytest.raises(ConfigError, match=r"flags\.parquet has no row with likely_typo=True \(of 1 rows in 'en'\)"):
        WikiEditNoiseV2(dictionary=str(path))


def test_a_build_the_dictionary_matched_nothing_in_warns(tmp_path):
    unused = tmp_path / "unused.tsv"
    unused.write_text("zyzzyva\tzyzyva\t1\n", encoding="utf-8")
    with DatasetRepo(tmp_path / "v1", "1.0.0") as repo:  # wikiedit@1 keeps every row: the set equals the source
        built = build_config(repo, ConfigRequest(source="demo", noise=f"wikiedit@1(dictionary={unused})"), progress=False)
        model = parse_noise(f"wikiedit@1(dictionary={unused})", "en")
        assert built.stats["edits"] == 0 and built.stats["rows"] == 41
        [warning] = model.build_warnings(built.stats)
        assert "matched no word of the 41 input rows" in warning and "unused.tsv" in warning and "\n" not in warning
    with DatasetRepo(tmp_path / "v2", "1.0.0") as repo, pytest.raises(ConfigError, match=(
            rf"every row of .* was dropped \(41 {NO_DICTIONARY_WORD}\): nothing written")):
        build_config(repo, ConfigRequest(source="demo", noise=f"wikiedit(dictionary={unused})"), progress=False)


def test_build_warnings_read_this_models_edits():
    model = WikiEditNoiseV2(dictionary=str(NATURAL_PAIRS), drop_unedited=False)
    assert model.build_warnings({"rows_in": 5, "rows": 5, "edits": 3, "dropped": {}}) == []
    assert model.build_warnings({"rows_in": 5, "rows": 5, "edits": 0, "dropped": {}})
    chained = {"rows_in": 5, "rows": 5, "edits": 9, "edits_by_kind": {"keyboard": 9}, "dropped": {}}  # a chain's stats
    assert "matched no word" in model.build_warnings(chained)[0]
    mostly_dropped = {"rows_in": 10, "rows": 4, "edits": 4, "dropped": {NO_DICTIONARY_WORD: 5, NO_EDITABLE_WORD: 1}}
    [warning] = model.build_warnings(mostly_dropped)
    assert warning.startswith("wikiedit@2: 6 of 10 rows (60%) were dropped")
    assert MisspellingNoise(dictionary=str(NATURAL_PAIRS)).build_warnings({"rows_in": 2, "rows": 2, "edits": 0})
    assert ReduplicationNoise(dictionary=str(NATURAL_PAIRS)).build_warnings({"rows_in": 2, "rows": 2, "edits": 0}) == []


# --- 5. wikiedit@2: Stickland et al.'s injection ------------------------------------------------------


def test_wikiedit_resolves_to_version_2_and_version_1_stays_buildable():
    assert type(create("wikiedit", dictionary=str(NATURAL_PAIRS))) is WikiEditNoiseV2
    assert type(create("wikiedit@1", dictionary=str(NATURAL_PAIRS))) is WikiEditNoise


DICTIONARY_WORDS = ["receive", "the", "which", "government", "because", "definitely", "separate", "people", "with",
                    "and", "of", "year", "city", "first", "good", "love"]
OTHER_WORDS = ["report", "x", "it's", "long-term", "2024", "na\u00efve", "\u0939\u093f\u0902\u0926\u0940", "A"]
WORD = st.sampled_from(DICTIONARY_WORDS + OTHER_WORDS).flatmap(
    lambda w: st.sampled_from([w, w.capitalize(), w.upper()]))
TEXT = st.lists(st.tuples(WORD, st.sampled_from([" ", ", ", " - ", "\n", "? "])), max_size=40).map(
    lambda parts: "".join(w + sep for w, sep in parts).strip())
KEYS = set(DICTIONARY_WORDS)


def words_of(text: str, lang: str = "en") -> list[str]:
    """The words ``wikiedit@2`` counts in ``text`` (:func:`wikiedit_word_spans`)."""
    return [text[a:b] for a, b in wikiedit_word_spans(text, lang)]


def candidates(text: str) -> int:
    """Words of ``text`` with a dictionary entry (every form in natural_pairs.tsv changes its word)."""
    return sum(w in KEYS or w.lower() in KEYS for w in words_of(text))


@settings(max_examples=150, deadline=None)
@given(TEXT, st.integers(min_value=1, max_value=100), st.integers(min_value=0, max_value=2**32))
def test_edits_are_ceil_rate_times_words_capped_by_candidates(text, percent, seed):
    model = WikiEditNoiseV2(rate=percent / 100, dictionary=str(NATURAL_PAIRS), drop_unedited=False)
    [noised] = model.apply(NoiseInput([text], [ExampleRng(seed)]))
    words = len(words_of(text))
    assert len(noised.edits) == min(-(-percent * words // 100), candidates(text))  # integer ceil: exact
    assert apply_edits(text, noised.edits) == noised.text
    assert all(e.original != e.replacement for e in noised.edits)  # every edit changes the text


@settings(max_examples=100, deadline=None)
@given(TEXT, st.floats(min_value=0.001, max_value=1.0))
def test_edit_count_is_the_exact_ceiling_for_any_rate(text, rate):
    model = WikiEditNoiseV2(rate=rate, dictionary=str(NATURAL_PAIRS))
    [noised] = model.apply(NoiseInput([text], [ExampleRng(0)]))
    words = len(words_of(text))
    expected = min(math.ceil(Fraction(repr(rate)) * words), candidates(text))
    assert len(noised.edits) == expected
    assert (noised.failure is None) == (expected > 0)


def test_the_rate_is_read_as_the_decimal_it_was_written_as():
    assert 0.28 * 25 > 7 and edit_count(0.28, 25) == 7 and edit_count(0.28, 26) == 8 and edit_count(0.5, 11) == 6
    text = " ".join(["the"] * 25)
    [noised] = WikiEditNoiseV2(rate=0.28, dictionary=str(NATURAL_PAIRS)).apply(NoiseInput([text], [ExampleRng(3)]))
    assert len(noised.edits) == 7


def test_a_text_with_no_edit_is_a_failure_unless_kept(tsv):
    text = "Nothing here matches."
    [dropped] = WikiEditNoiseV2(dictionary=str(tsv)).apply(NoiseInput([text], [ExampleRng(0)]))
    assert dropped == Noised(text, (), failure="wikiedit: no word of this text is in the dictionary")
    [protected] = WikiEditNoiseV2(dictionary=str(tsv)).apply(NoiseInput(["the report"], [ExampleRng(0)], protected=[[(0, 3)]]))
    assert protected == Noised("the report", (), failure=NO_EDITABLE_WORD)
    [kept] = WikiEditNoiseV2(dictionary=str(tsv), drop_unedited=False).apply(NoiseInput([text], [ExampleRng(0)]))
    assert kept == Noised(text, ())
    with pytest.raises(ConfigError, match=r"rate=0 makes no edit, so drop_unedited=true would drop every row"):
        WikiEditNoiseV2(rate=0.0, dictionary=str(tsv))
    assert WikiEditNoiseV2(rate=0.0, dictionary=str(tsv), drop_unedited=False).apply(NoiseInput(["the"], [ExampleRng(0)])) == [
        Noised("the", ())]


def test_case_only_pairs_keep_the_dictionarys_case(tmp_path):
    path = tmp_path / "case.tsv"
    path.write_text("us\tUS\t3\nUS\tus\t2\nnasa\tNASA\t1\nit\tIt\t1\nit\tti\t1\n", encoding="utf-8")
    v1 = WikiEditNoise(rate=1.0, dictionary=str(path))
    v2 = WikiEditNoiseV2(rate=1.0, dictionary=str(path))
    [old] = v1.apply(NoiseInput(["US"], [ExampleRng(0)]))
    assert old.edits[0].original == old.edits[0].replacement == "US"  # wikiedit@1: a no-op edit (kept: golden)
    assert v2.apply(NoiseInput(["US"], [ExampleRng(0)]))[0].text == "us"
    assert v2.apply(NoiseInput(["us"], [ExampleRng(0)]))[0].text == "US"
    assert v2.apply(NoiseInput(["Us"], [ExampleRng(0)]))[0].text == "US"  # found as "us": the case-only form is taken as mined
    assert v2.apply(NoiseInput(["NASA"], [ExampleRng(0)]))[0].failure == NO_EDITABLE_WORD  # its only form leaves it as it is
    for seed in range(20):  # "It" -> "It" would change nothing: only "Ti" (the other form, case matched) is drawn
        assert v2.apply(NoiseInput(["It"], [ExampleRng(seed)]))[0].text == "Ti"


def test_a_version_2_build_drops_and_counts_rows_without_an_edit(tmp_path):
    with DatasetRepo(tmp_path / "out", "1.0.0") as repo:
        built = build_config(repo, ConfigRequest(source="demo", noise=f"wikiedit(dictionary={NATURAL_PAIRS}, rate=0.25)"),
                             progress=False)
        write_card(repo)
    stats = built.stats
    assert stats["rows"] + sum(stats["dropped"].values()) == stats["rows_in"] == 41
    assert set(stats["dropped"]) == {NO_DICTIONARY_WORD} and stats["rows"] > 0
    rows = [row for path in built.paths for row in pq.read_table(path).to_pylist()]
    assert rows and all(row["noise_edits"] and row["noise_version"] == 2 for row in rows)
    for row in rows:
        words = len(words_of(row["original_question"]))
        assert len(row["noise_edits"]) <= math.ceil(0.25 * words)


# --- 6. content-based digests; reloading when a file changes ------------------------------------------


def test_the_digest_is_the_content_and_a_changed_file_is_reloaded(tmp_path):
    first, second = tmp_path / "a.tsv", tmp_path / "b" / "a.tsv"
    second.parent.mkdir()
    first.write_text("the\tteh\t2\n", encoding="utf-8")
    shutil.copy(first, second)
    model = WikiEditNoiseV2(dictionary=str(first))
    assert model.digest() == WikiEditNoiseV2(dictionary=str(second)).digest()  # same content, another path
    same_as_parquet = parquet_dictionary(tmp_path / "a.parquet", [{"correct": "the", "noisy": "teh", "count": 2}])
    assert model.digest() == WikiEditNoiseV2(dictionary=str(same_as_parquet)).digest()  # same pairs, another format
    before = model.digest()
    first.write_text("the\tteh\t2\nof\tfo\t1\n", encoding="utf-8")
    os.utime(first, ns=(1, 1))  # a different stamp even on a coarse-grained file system
    assert model.digest() == before  # files are checked when a spec is made, never under a running build
    again = WikiEditNoiseV2(dictionary=str(first))  # making the spec again loads the new content (for equal specs too)
    assert again.digest() != before and "of" in again._dictionary and "of" in model._dictionary
    folder = mined_folder(tmp_path / "dict", {"wikiedits-en": EN_ROWS})
    mined = WikiEditNoiseV2(dictionary=str(folder))
    held = mined.digest()
    parquet_dictionary(folder / "wikiedits-en" / SHARD_NAME, [*EN_ROWS, {"correct": "of", "noisy": "fo", "count": 1}])
    remade = WikiEditNoiseV2(dictionary=str(folder))
    assert remade.digest() != held and "of" in remade._dictionary


# --- 7. wikiedit@2's words: the units the Wikipedia miner keys its dictionary on ------------------------------------

THAI_QUESTION = "รัฐสภาพิจารณารายงาน ใครเป็นผู้พิจารณารายงาน"  # พิจารณา alone, then inside ผู้พิจารณา ("the one who considers")


def test_english_words_split_at_apostrophes_and_keep_compounds_whole():
    """Moses (the miner) splits ``Luther's`` and ``doesn't`` at the apostrophe and keeps ``long-term``, ``U.S.``
    and numbers whole; wikiedit@2's words are the same units."""
    text = "Luther's long-term plan for the U.S. doesn't cost 3.5 rock\u2019n\u2019roll"
    assert words_of(text) == ["Luther", "s", "long-term", "plan", "for", "the", "U.S.", "doesn", "t", "cost", "3.5",
                              "rock", "n", "roll"]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Luther's long-term plan for the U.S. doesn't work, e.g. in 1,000 cases (3.5%)."),
    ("fr", "L'homme d'\u00c9tat a dit qu'il viendra aujourd\u2019hui."),
    ("tr", "Ankara'da 3.5 milyon ki\u015fi ya\u015f\u0131yor."),
    ("de", "Das Auto-Haus, z.B. in K\u00f6ln, ist gro\u00df."),
    ("en", "rock\u2019n\u2019roll and long\u2010term"),
])
def test_words_are_the_miners_moses_tokens(lang, text):
    pytest.importorskip("sacremoses")
    from noisecraft.mining.wiki_text import LanguageText

    moses = {token.strip("'\u2019") for token in LanguageText(lang).tokens(text)}  # "'s" and "l'" are keys of clitics
    assert set(words_of(text, lang)) <= moses


def test_a_key_matches_before_an_apostrophe_and_a_compound_only_whole(tmp_path):
    path = tmp_path / "moses.tsv"
    path.write_text("Luther\tLutehr\t1\nlong-term\tlong-trem\t1\nterm\tterrm\t1\n", encoding="utf-8")
    model = WikiEditNoiseV2(rate=1.0, dictionary=str(path))
    assert model.apply(NoiseInput(["Luther's long-term plan"], [ExampleRng(0)]))[0].text == "Lutehr's long-trem plan"
    assert model.apply(NoiseInput(["a term"], [ExampleRng(0)]))[0].text == "a terrm"


@pytest.mark.parametrize(("lang", "package", "named"), [
    ("th", "pythainlp", "pythainlp"), ("zh", "jieba", "jieba"), ("ja", "sudachipy", "SudachiPy"), ("en", None, "Moses")])
def test_the_description_names_the_segmenter(lang, package, named):
    if package:
        pytest.importorskip(package)
    described = WikiEditNoiseV2(dictionary=str(NATURAL_PAIRS), lang=lang).describe()
    assert named in described
    if package:
        assert "the same function" in described and "matches whole words" in described
    else:
        assert "`doesn't` is `doesn` + `t`" in described and "`long-term`" in described


def test_a_thai_key_matches_only_a_whole_segmented_word(tmp_path):
    pytest.importorskip("pythainlp")
    path = tmp_path / "th.tsv"
    path.write_text("\u0e1e\u0e34\u0e08\u0e32\u0e23\u0e13\u0e32\t\u0e1e\u0e34\u0e08\u0e23\u0e13\u0e32\t1\n", encoding="utf-8")
    [noised] = WikiEditNoiseV2(rate=1.0, dictionary=str(path), lang="th").apply(NoiseInput([THAI_QUESTION], [ExampleRng(0)]))
    [edit] = noised.edits
    assert (edit.start, edit.end) == (6, 13) and edit.original == "\u0e1e\u0e34\u0e08\u0e32\u0e23\u0e13\u0e32"
    assert noised.text == "รัฐสภาพิจรณารายงาน ใครเป็นผู้พิจารณารายงาน"  # not inside ผู้พิจารณา
    # wikiedit@1 (frozen) sees each run of Thai letters as one word, so the mined word never matches
    v1 = WikiEditNoise(rate=1.0, dictionary=str(path), lang="th")
    assert v1.apply(NoiseInput([THAI_QUESTION], [ExampleRng(0)]))[0].edits == ()


def test_without_the_segmenter_words_are_characters_and_the_card_says_so(tmp_path, without_segmenters):
    path = tmp_path / "zh.tsv"
    path.write_text("\u8bae\t\u610f\t1\n", encoding="utf-8")  # a per-character dictionary: 议 -> 意
    model = WikiEditNoiseV2(rate=1.0, dictionary=str(path), lang="zh")
    assert "per character (jieba not installed" in model.describe()
    assert model.apply(NoiseInput(["\u4f1a\u8bae"], [ExampleRng(0)]))[0].text == "\u4f1a\u610f"


# Words of each language, joined without spaces or with the separators below, and dictionary keys that are words,
# single characters found inside words (学, รัฐ, 国) and joins of two words (北京大学): whatever the segmenter does
# with them in context, an edit must cover exactly one of its words.
SEGMENTED_VOCABULARY = {
    "th": ["รัฐบาล", "ได้รับ", "รายงาน", "ฉบับ", "แรก", "พิจารณา", "ผู้", "รัฐสภา", "ใน", "ปี", "เมื่อใด", "ประชากร",
           "ประมาณ", "คน"],
    "zh": ["政府", "在", "第一次", "会议", "上", "通过", "了", "这份", "报告", "北京", "大学", "学生", "会议室", "人口",
           "大约", "的"],
    "ja": ["東京", "都庁", "の", "職員", "は", "国会", "議事堂", "へ", "行き", "ました", "大学", "学生"],
}
SEGMENTED_KEYS = {
    "th": ["รัฐ", "รัฐสภาพิจารณา", "ผู้พิจารณา", "รายงานฉบับ"],
    "zh": ["学", "会", "北京大学", "会议室", "报告。"],
    "ja": ["国", "東京都庁", "議事", "学生"],
}
SEPARATORS = ["", "", "", " ", "\uff0c", "\u3002", " NFL ", "2010", "?"]


def _installed(*modules: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(module) is not None for module in modules)


@pytest.fixture(scope="module")
def segmented_dictionary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A TSV whose noisy form of each key is the key with its last character doubled (always a change)."""
    path = tmp_path_factory.mktemp("segmented") / "pairs.tsv"
    keys = {key for lang in SEGMENTED_VOCABULARY for key in SEGMENTED_VOCABULARY[lang] + SEGMENTED_KEYS[lang]}
    path.write_text("".join(f"{key}\t{key}{key[-1]}\t1\n" for key in sorted(keys)), encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", [
    pytest.param("th", marks=pytest.mark.skipif(not _installed("pythainlp"), reason="pythainlp not installed")),
    pytest.param("zh", marks=pytest.mark.skipif(not _installed("jieba"), reason="jieba not installed")),
    pytest.param("ja", marks=pytest.mark.skipif(not _installed("sudachipy", "sudachidict_core"),
                                                reason="SudachiPy or SudachiDict-core not installed")),
])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_wikiedit_edits_cover_whole_segmented_words(segmented_dictionary, lang, data):
    parts = data.draw(st.lists(st.tuples(st.sampled_from(SEGMENTED_VOCABULARY[lang] + SEGMENTED_KEYS[lang]),
                                         st.sampled_from(SEPARATORS)), max_size=15))
    text = "".join(word + separator for word, separator in parts)
    rate = data.draw(st.integers(min_value=1, max_value=100)) / 100
    model = WikiEditNoiseV2(rate=rate, dictionary=str(segmented_dictionary), lang=lang, drop_unedited=False)
    [noised] = model.apply(NoiseInput([text], [ExampleRng(data.draw(st.integers(min_value=0, max_value=2**32)))]))
    words = word_spans(text, lang)
    assert wikiedit_word_spans(text, lang) == words  # the segmenter's words, exactly what the miner tokenises with
    in_dictionary = [(a, b) for a, b in words if text[a:b] in model._dictionary]
    for edit in noised.edits:
        assert (edit.start, edit.end) in in_dictionary and edit.replacement == edit.original + edit.original[-1]
    assert len(noised.edits) == min(edit_count(rate, len(words)), len(in_dictionary))
    assert apply_edits(text, noised.edits) == noised.text
