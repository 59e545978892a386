"""Tweet reduplication miner: golden examples, agreement with the CoLeS regex method, real files,
bad input, @mentions and #hashtags, lexicon folding, per-file encodings, streaming, and a property
over random lexicon words."""

import os
from collections import Counter
from itertools import groupby
from pathlib import Path

import datasets
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from noisecraft.core.schema import to_features
from noisecraft.dataset.noise_dictionary import dictionary_features
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.reduplication import (
    REDUPLICATION_COLUMNS,
    TWEET_COLUMNS,
    TweetFile,
    fold_lexicon,
    mine_naive,
    mine_reduplications,
    read_lexicon,
    read_tweets,
    reduplication_dictionary,
)

from conftest import corpus

TRAINING = ("sentiment140/training.1600000.processed.noemoticon.head10k_tail10k.csv",
            "sentiment140/training.random10k.pandas_resaved.csv")
TEST_SET = "sentiment140/testdata.manual.2009.06.14.csv"
LEXICON = ("opinion_lexicon/positive-words.txt", "opinion_lexicon/negative-words.txt")


def _mine(texts: list[str], lexicon: list[str]) -> list[dict]:
    return mine_reduplications(pl.Series(texts, dtype=pl.String), lexicon)


def _pairs(rows: list[dict]) -> dict[tuple[str, str], int]:
    return {(r["correct"], r["noisy"]): r["count"] for r in rows}


def _opinion_lexicon() -> list[str]:
    return read_lexicon([corpus(name) for name in LEXICON])


# --- golden examples -------------------------------------------------------------------------

def test_kindle_tweet():
    [row] = _mine(["@stellargirl I loooooooovvvvvveee my Kindle2."], ["love", "kindle"])
    assert row == {"lang": "en", "correct": "love", "noisy": "loooooooovvvvvveee", "count": 1, "probability": 1.0,
                   "extra_letters": 14, "repeated_letters": "o,v,e", "tweets": 1}


def test_several_variants_counts_tweets_and_probabilities():
    rows = _mine(["soooo baaaad", "BAAAAAD day, baaaad baaaad", "crazzzzyyy"], ["bad", "so", "crazy"])
    assert [(r["correct"], r["noisy"], r["count"], r["tweets"]) for r in rows] == [
        ("bad", "baaaad", 3, 2), ("bad", "baaaaad", 1, 1), ("crazy", "crazzzzyyy", 1, 1), ("so", "soooo", 1, 1)]
    assert [r["probability"] for r in rows] == [0.75, 0.25, 1.0, 1.0]
    assert rows[2]["repeated_letters"] == "z,y" and rows[2]["extra_letters"] == 5


def test_the_closest_lexicon_word_wins():
    lexicon = ["god", "good"]
    assert _pairs(_mine(["gooooood", "goood", "godddd"], lexicon)) == {
        ("good", "gooooood"): 1, ("good", "goood"): 1, ("god", "godddd"): 1}
    assert _pairs(_mine(["goood"], ["god"])) == {("god", "goood"): 1}


def test_doubled_letters_and_the_word_itself_are_not_emphatic():
    assert _mine(["baad, baadd, bad, cooll, cool"], ["bad", "cool"]) == []
    assert _pairs(_mine(["baaad coooll"], ["bad", "cool"])) == {("bad", "baaad"): 1, ("cool", "coooll"): 1}


def test_whole_words_only():
    assert _mine(["baaaadge", "baaaad2", "xbaaaad", "baaaad_"], ["bad"]) == []
    assert _pairs(_mine(["baaaad! (baaaad)", "so-baaaad"], ["bad"])) == {("bad", "baaaad"): 3}


def test_mentions_and_hashtags_are_not_tweet_words():
    texts = ["@baaaad #baaaad #so_baaaad @user_baaaad mail@baaaad.com", "@user baaaad!", "#tag baaaad"]
    assert _pairs(_mine(texts, ["bad"])) == {("bad", "baaaad"): 2}
    assert mine_naive(texts, ["bad"]) == Counter({("bad", "baaaad"): 2})  # the reference method agrees


def test_lengthened_lexicon_entries_fold_into_their_base_word():
    lexicon = fold_lexicon(["good", "goood", "gooood", "god", "whooooa", "cool"])
    assert lexicon.folded == {"goood": "good", "gooood": "good"}
    assert lexicon.kept == ("whooooa",)  # no base word in the lexicon: stays canonical, and is reported
    assert "goood" not in lexicon.words and "good" in lexicon.words
    assert lexicon.describe_folding() == "goood, gooood -> good"
    rows = _mine(["goood", "gooood day", "goooooooood", "good", "whoooooooa"], ["good", "goood", "gooood", "whooooa"])
    assert _pairs(rows) == {("good", "goood"): 1, ("good", "gooood"): 1, ("good", "goooooooood"): 1,
                            ("whooooa", "whoooooooa"): 1}
    assert mine_naive(["goood", "gooood day", "goooooooood"], ["good", "goood", "gooood"]) == Counter(
        {("good", "goood"): 1, ("good", "gooood"): 1, ("good", "goooooooood"): 1})


def test_folding_the_opinion_lexicon():
    """Hu & Liu list lengthenings of their own words; each goes to the longest word it lengthens."""
    lexicon = fold_lexicon(_opinion_lexicon())
    assert lexicon.folded == {"goood": "good", "gooood": "good", "beautifullly": "beautifully",
                              "sloooooooooooooow": "sloow", "sloooow": "sloow", "slooow": "sloow",
                              "slowww": "sloww", "slowwww": "sloww", "whoooa": "whooa"}
    assert lexicon.kept == ()


def test_lexicon_entries_that_are_not_letters_are_ignored():
    assert _mine(["2-faaaaced f**kkkk a+++"], ["2-faced", "f**k", "a+"]) == []


def test_rows_fit_the_dictionary_features():
    rows = _mine(["soooo baaaad"], ["bad", "so"])
    table = datasets.Dataset.from_list(rows, features=to_features(dictionary_features(REDUPLICATION_COLUMNS)))
    assert table.column_names == ["lang", "correct", "noisy", "count", "probability", *REDUPLICATION_COLUMNS]
    assert table[0]["repeated_letters"] == "a"


# --- real files ------------------------------------------------------------------------------

def test_reading_the_three_sentiment140_variants():
    test = read_tweets(corpus("sentiment140/testdata.manual.2009.06.14.csv"))
    assert test.shape == (498, 6) and test.columns == list(TWEET_COLUMNS)
    assert test.row(0)[:5] == ("4", "3", "Mon May 11 03:17:40 UTC 2009", "kindle2", "tpryan")
    assert set(test["polarity"]) == {"0", "2", "4"}
    original = read_tweets(corpus(TRAINING[0]))  # CRLF, no newline after the last row
    assert original.shape == (20000, 6) and original["text"][-1].startswith("happy #charitytuesday")
    resaved = read_tweets(corpus(TRAINING[1]))  # the pandas header line 0,1,...,5 is not a tweet
    assert resaved.shape == (10000, 6) and resaved.row(0)[:2] == ("4", "2061966166")
    for frame in (test, original, resaved):
        assert all(dtype == pl.String for dtype in frame.dtypes) and frame.null_count().sum_horizontal().item() == 0


def test_reading_the_opinion_lexicon():
    words = _opinion_lexicon()
    assert len(words) == len(set(words)) > 6700
    assert "naïve" in words  # the one latin-1 byte of negative-words.txt
    assert "love" in words and not any(w.startswith(";") or w != w.lower() for w in words)


@pytest.mark.slow
def test_agrees_with_the_coles_regex_method_on_the_test_set():
    texts = read_tweets(corpus("sentiment140/testdata.manual.2009.06.14.csv"))["text"]
    lexicon = _opinion_lexicon()
    rows = mine_reduplications(texts, lexicon)
    assert Counter(_pairs(rows)) == mine_naive(texts.to_list(), lexicon)
    assert ("love", "loooooooovvvvvveee") in _pairs(rows)


def test_rows_on_the_training_samples_are_consistent():
    texts = pl.concat([read_tweets(corpus(name)) for name in TRAINING])["text"]
    rows = mine_reduplications(texts, _opinion_lexicon())
    assert len(rows) > 100
    assert rows == sorted(rows, key=lambda r: (r["correct"], -r["count"], r["noisy"]))
    for row in rows:
        assert 1 <= row["tweets"] <= row["count"] and row["extra_letters"] == len(row["noisy"]) - len(row["correct"]) > 0
    totals: dict[str, float] = {}
    for row in rows:
        totals[row["correct"]] = totals.get(row["correct"], 0.0) + row["probability"]
    assert all(total == pytest.approx(1.0) for total in totals.values())


def test_the_real_sample_with_mentions_skipped_and_the_lexicon_folded(tmp_path):
    """On all of ../shared/corpora/sentiment140 the two changes move 8 pairs each way (232 pairs before
    and after): (gooood, ...) -> (good, ...) and the lexicon's own goood/gooood become variants, and three
    @mentions (@jokerrrr, @scarrrr, @wwwicked) are no longer tweet words."""
    files = [corpus(TEST_SET), *[corpus(name) for name in TRAINING]]
    mined = reduplication_dictionary(files, [corpus(name) for name in LEXICON])
    pairs = _pairs(mined.rows)
    assert len(pairs) == 232 and sum(pairs.values()) == 345
    assert pairs["good", "goood"] == 14 and ("good", "gooooood") in pairs and ("gooood", "gooooood") not in pairs
    assert not {("wicked", "wwwicked"), ("joker", "jokerrrr"), ("scar", "scarrrr")} & set(pairs)
    assert mined.stats["in_mentions_or_hashtags"] == "3 occurrence(s) left out (@jokerrrr 1, @scarrrr 1, @wwwicked 1)"
    assert mined.stats["lexicon_folded"].startswith("beautifullly -> beautifully; goood, gooood -> good")
    assert mined.stats["tweets"] == 30498
    assert mined.stats["read_as"] == "; ".join(f"{path.name}: utf-8" for path in files)
    assert mined.stats["lexicon_read_as"] == ("positive-words.txt: utf-8; negative-words.txt: latin-1 (not UTF-8: 1 line(s) "
                                              "with non-ASCII bytes, none UTF-8: line(s) 3043)")


def test_reading_in_blocks_gives_the_whole_file(tmp_path):
    """The miner streams: tiny blocks (many of them, the strict parser taking over mid-file) give exactly
    the rows, encodings and line numbers of one whole-file read."""
    path = corpus(TRAINING[0])
    whole = read_tweets(path)
    blocks = TweetFile(path, block_bytes=4096)
    frames = list(blocks.batches())
    assert len(frames) > 100 and pl.concat(frames).equals(whole) and blocks.rows == whole.height
    rows = mine_reduplications((frame["text"] for frame in TweetFile(path, block_bytes=4096).batches(("text",))),
                               _opinion_lexicon())
    assert rows == mine_reduplications(whole["text"], _opinion_lexicon())
    late = _csv(tmp_path, GOOD * 300 + '4,2,d,q,u,"a quoted\nnewline"\n' + GOOD * 300 + '"0","2","d","q","u"\n')
    with pytest.raises(InputError, match=r"tweets\.csv, line 603: 5 fields"):
        list(TweetFile(late, block_bytes=256).batches())
    quoted = _csv(tmp_path, GOOD * 300 + '4,2,d,q,u,"a quoted\nnewline"\n' + GOOD * 300)
    small, large = TweetFile(quoted, block_bytes=256), TweetFile(quoted)
    assert pl.concat(list(small.batches())).equals(pl.concat(list(large.batches()))) and small.rows == 601
    mixed = tmp_path / "mixed.csv"
    mixed.write_bytes((GOOD * 449).encode() + b'"4","2","d","q","u","na\xefve"\n' + (GOOD * 100).encode())
    small = TweetFile(mixed, block_bytes=256)
    assert pl.concat(list(small.batches()))["text"][449] == "naïve"
    assert small.encoding() == "latin-1 (not UTF-8: 1 line(s) with non-ASCII bytes, none UTF-8: line(s) 450)"


# --- bad or unusual input --------------------------------------------------------------------

GOOD = '"0","1","Mon Apr 06 22:19:45 PDT 2009","NO_QUERY","user","so baaaad"\n'


def _csv(tmp_path: Path, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / "tweets.csv"
    path.write_bytes(text.encode(encoding))
    return path


def test_latin1_csv(tmp_path):
    path = _csv(tmp_path, GOOD + '"4","2","d","q","u","caf\xe9 tr\xe8s cooool"\n', "latin-1")
    tweets = TweetFile(path)
    assert pl.concat(list(tweets.batches()))["text"].to_list() == ["so baaaad", "café très cooool"]
    assert tweets.encoding() == "latin-1 (not UTF-8: 1 line(s) with non-ASCII bytes, none UTF-8: line(s) 2)"


def test_one_bad_byte_does_not_turn_a_utf8_file_into_mojibake(tmp_path):
    """The other lines stay UTF-8 (no 'cafÃ©'); the bad line is read as latin-1 and named."""
    path = tmp_path / "tweets.csv"
    path.write_bytes((GOOD + '"4","2","d","q","u","café ♥ soooo good"\n').encode() + b'"4","3","d","q","u","na\xefve"\n'
                     + '"4","4","d","q","u","déjà vu"\n'.encode())
    tweets = TweetFile(path)
    texts = pl.concat(list(tweets.batches()))["text"].to_list()
    assert texts == ["so baaaad", "café ♥ soooo good", "naïve", "déjà vu"]
    assert tweets.encoding() == "utf-8, 1 line(s) not UTF-8 read as latin-1 (line(s) 3)"
    mined = reduplication_dictionary([path], [corpus(LEXICON[0]), corpus(LEXICON[1])])
    assert mined.stats["read_as"] == "tweets.csv: utf-8, 1 line(s) not UTF-8 read as latin-1 (line(s) 3)"


def test_a_named_encoding_is_used_and_strict_utf8_names_the_line(tmp_path):
    path = _csv(tmp_path, GOOD + '"4","2","d","q","u","caf\xe9"\n', "cp1252")
    tweets = TweetFile(path, encoding="cp1252")
    assert pl.concat(list(tweets.batches()))["text"].to_list() == ["so baaaad", "café"]
    assert tweets.encoding() == "cp1252 (as requested)"
    with pytest.raises(InputError, match=r"tweets\.csv, line 2: not UTF-8 text \(byte \d+, 0xe9; latin-1 or cp1252\?\)"):
        read_tweets(path, encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown encoding 'klingon'"):
        read_tweets(path, encoding="klingon")
    with pytest.raises(ConfigError, match="not ASCII-compatible"):
        read_tweets(path, encoding="utf-16")


def test_missing_or_unreadable_files_are_one_line_errors(tmp_path):
    lexicon = [corpus(LEXICON[0])]
    with pytest.raises(InputError, match=r"nothere\.csv: cannot read tweet file: No such file or directory"):
        reduplication_dictionary([tmp_path / "nothere.csv"], lexicon)
    with pytest.raises(InputError, match=r"cannot read tweet file: Is a directory"):
        reduplication_dictionary([tmp_path], lexicon)
    with pytest.raises(InputError, match=r"nolexicon\.txt: cannot read lexicon: No such file or directory"):
        reduplication_dictionary([_csv(tmp_path, GOOD)], [tmp_path / "nolexicon.txt"])


def test_a_file_listed_twice_is_mined_once(tmp_path):
    path = _csv(tmp_path, GOOD * 3)
    link = tmp_path / "link.csv"
    os.symlink(path, link)
    mined = reduplication_dictionary([path, path, link], [corpus(LEXICON[1])])
    assert mined.stats["tweets"] == 3 and _pairs(mined.rows) == {("bad", "baaaad"): 3}
    assert mined.inputs == ["tweets.csv"]
    assert mined.stats["repeated_inputs"] == "tweets.csv (listed twice); link.csv (same file as tweets.csv)"


def test_random_bytes_and_prose_are_not_tweets(tmp_path):
    import random

    noise = tmp_path / "noise.csv"
    noise.write_bytes(random.Random(0).randbytes(5000))
    with pytest.raises(InputError, match=r"noise\.csv, line \d+: "):
        read_tweets(noise)
    prose = tmp_path / "prose.csv"
    prose.write_text("It was the best of times, it was the worst of times.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"prose\.csv, line 1: 2 fields, a Sentiment140 row has 6"):
        read_tweets(prose)


def test_quoted_newline_and_blank_lines_are_accepted(tmp_path):
    tweets = read_tweets(_csv(tmp_path, GOOD + "\n" + '4,2,d,q,u,"two\nlines, one ""tweet"""\n\n'))
    assert tweets["text"].to_list() == ["so baaaad", 'two\nlines, one "tweet"']


@pytest.mark.parametrize("bad_line, problem", [
    ('"0","2","d","q","u","no closing quote\n', r"line 2: broken quoting"),
    ('"0","2","d","q","u","he said "hi" ok"\n', r"line 2: broken quoting"),
    ('"0","2","d","q","u"\n', r"line 2: 5 fields, a Sentiment140 row has 6"),
    ('"0","2","d","q","u","t","extra"\n', r"line 2: 7 fields"),
])
def test_bad_rows_name_the_file_and_line(tmp_path, bad_line, problem):
    with pytest.raises(InputError, match=rf"tweets\.csv, {problem}"):
        read_tweets(_csv(tmp_path, GOOD + bad_line + GOOD))


def test_bad_row_after_a_pandas_header(tmp_path):
    with pytest.raises(InputError, match=r"tweets\.csv, line 3: 5 fields"):
        read_tweets(_csv(tmp_path, "0,1,2,3,4,5\n4,1,d,q,u,fine\n4,2,d,q,u\n"))


def test_empty_csv(tmp_path):
    with pytest.raises(InputError, match="empty file"):
        read_tweets(_csv(tmp_path, ""))
    with pytest.raises(InputError, match="only a header line"):
        read_tweets(_csv(tmp_path, "0,1,2,3,4,5\n"))


def test_latin1_lexicon_and_comments(tmp_path):
    path = tmp_path / "words.txt"
    path.write_bytes("; comment\n\nNa\xefve\nbad\nBAD\n".encode("latin-1"))
    assert read_lexicon([path]) == ["naïve", "bad"]


def test_empty_lexicon_names_the_files(tmp_path):
    first, second = tmp_path / "pos.txt", tmp_path / "neg.txt"
    first.write_text("; only a comment\n\n", encoding="utf-8")
    second.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match=r"pos\.txt, .*neg\.txt: empty lexicon"):
        read_lexicon([first, second])
    with pytest.raises(ConfigError, match="no lexicon file"):
        read_lexicon([])


def test_lexicon_line_with_two_words(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("good\nvery bad\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"words\.txt, line 2: expected one word per line"):
        read_lexicon([path])


# --- properties ------------------------------------------------------------------------------

WORDS = st.text(alphabet="abcdeloz", min_size=1, max_size=8)


@st.composite
def lengthened(draw) -> tuple[str, str, str]:
    """A word, an emphatic variant of it (one run forced to 3+ letters, others maybe longer),
    and the letters of the lengthened runs."""
    word = draw(WORDS)
    runs = [(letter, len(list(group))) for letter, group in groupby(word)]
    extra = draw(st.lists(st.integers(0, 3), min_size=len(runs), max_size=len(runs)))
    forced = draw(st.integers(0, len(runs) - 1))
    lengths = [n + more for (_, n), more in zip(runs, extra)]
    lengths[forced] = max(lengths[forced], 3, runs[forced][1] + 1)
    variant = "".join(letter * length for (letter, _), length in zip(runs, lengths))
    letters = ",".join(letter for (letter, n), length in zip(runs, lengths) if length > n)
    return word, variant, letters


@given(lengthened())
def test_any_lengthened_word_is_found(case):
    word, variant, letters = case
    [row] = _mine([f"so {variant.upper()}!", "nothing here"], [word])
    assert (row["correct"], row["noisy"], row["count"], row["tweets"]) == (word, variant, 1, 1)
    assert row["repeated_letters"] == letters and row["extra_letters"] == len(variant) - len(word)


@given(st.lists(lengthened(), min_size=1, max_size=4), st.lists(WORDS, max_size=6),
       st.lists(st.sampled_from([" ", "-", "#", "@", "2", "_", "!! "]), min_size=8, max_size=8))
def test_agrees_with_the_regex_method_on_random_lexicons(cases, others, separators):
    lexicon = [word for word, _, _ in cases] + others
    tokens = [token for word, variant, _ in cases for token in (variant, word)] + others
    text = "".join(token + sep for token, sep in zip(tokens, separators * len(tokens)))
    assert Counter(_pairs(_mine([text, text.upper()], lexicon))) == mine_naive([text, text.upper()], lexicon)
