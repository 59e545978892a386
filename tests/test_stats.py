"""FieldScores: mergeable CER/WER/BLEU sufficient statistics equal to jiwer's and sacrebleu's corpus figures."""

import json
import pickle
import random
from collections import Counter

import jiwer
import pytest
import sacrebleu
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisecraft import stats
from noisecraft.stats import FieldScores, field_scores

from conftest import corpus


@pytest.fixture(params=["compiled", "python"])
def counting(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test through both ways of counting a row: ``noisecraft._counting`` (C) and the pure-Python fallback
    that a machine without a C compiler at install time uses."""
    if request.param == "python":
        for name in ("_CompiledReference", "_bounded_distance", "_count_runs", "_edit_spans", "_tokenize_13a"):
            monkeypatch.setattr(stats, name, None)
    elif stats._CompiledReference is None:
        pytest.skip("noisecraft._counting is not built (no C compiler when the package was installed)")
    return request.param


_compiled = pytest.mark.skipif(stats._CompiledReference is None, reason="noisecraft._counting is not built")

#: For @given tests that take the ``counting`` fixture: its patch holds for every generated example.
_both_paths = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _library_scores(refs: list[str], hyps: list[str]) -> dict[str, float]:
    """The figures as jiwer and sacrebleu compute them over the whole corpus (percent, unrounded)."""
    return {
        "cer": 100 * jiwer.cer(reference=refs, hypothesis=hyps),
        "wer": 100 * jiwer.wer(reference=refs, hypothesis=hyps),
        "bleu": sacrebleu.corpus_bleu(hyps, [refs]).score,
    }


def _accumulate(refs: list, hyps: list) -> FieldScores:
    scores = FieldScores()
    for ref, hyp in zip(refs, hyps, strict=True):
        scores.add(ref, hyp)
    return scores


def _assert_same_as_libraries(refs: list[str], hyps: list[str]) -> None:
    expected = _library_scores(refs, hyps)
    scores = _accumulate(refs, hyps)
    assert scores.exact_scores() == expected
    assert scores.scores() == {name: round(value, 2) for name, value in expected.items()}
    assert field_scores(refs, hyps) == scores.scores()


def _perturb(text: str) -> str:
    """Deterministic noise: reverse every third word, drop every seventh character of the rest, double some spaces."""
    words = text.split(" ")
    noisy = [word[::-1] if i % 3 == 0 else "".join(c for j, c in enumerate(word) if j % 7 != 6) for i, word in enumerate(words)]
    return "  ".join(noisy) if len(words) % 4 == 0 else " ".join(noisy)


def _xquad_questions(language: str) -> list[str]:
    data = json.loads(corpus(f"xquad/xquad.{language}.json").read_text(encoding="utf-8"))
    return [qa["question"] for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]


def _mrpc_pairs() -> tuple[list[str], list[str]]:
    lines = corpus("glue/MRPC/dev.tsv").read_text(encoding="utf-8-sig").splitlines()
    header = lines[0].split("\t")
    first, second = header.index("#1 String"), header.index("#2 String")
    rows = [line.split("\t") for line in lines[1:] if line]
    return [row[first] for row in rows], [row[second] for row in rows]


@pytest.mark.parametrize("language", ["en", "th"])
def test_xquad_questions_match_jiwer_and_sacrebleu(language: str, counting: str) -> None:
    refs = _xquad_questions(language)
    hyps = [_perturb(q) if i % 5 else q for i, q in enumerate(refs)]  # every fifth question unchanged
    assert len(refs) == 1190 and hyps != refs
    _assert_same_as_libraries(refs, hyps)


def test_mrpc_pairs_match_jiwer_and_sacrebleu(counting: str) -> None:
    sentences1, sentences2 = _mrpc_pairs()
    assert len(sentences1) == 408
    _assert_same_as_libraries(sentences1, sentences2)


# Pieces that exercise the libraries' preprocessing: whitespace runs, lone tabs/newlines (not word separators
# for jiwer), non-breaking and ideographic spaces, 13a's entity and <skipped> handling, punctuation, non-ASCII.
_PIECES = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "&amp;", "&quot;", "<skipped>", "-\n", " .", ",", "-", "'",
           "a", "b", "ab", "the", "Köln", "ß", "中文", "ไทย", "é", "🙂", "x1", "2,5"]
_texts = st.lists(st.sampled_from(_PIECES) | st.text(alphabet="ab éü中 .\t", max_size=3), max_size=8).map("".join)
_pairs = st.lists(st.tuples(_texts, _texts), min_size=1, max_size=12)


@_both_paths
@given(_pairs)
def test_generated_strings_match_jiwer_and_sacrebleu(counting: str, pairs: list[tuple[str, str]]) -> None:
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    _assert_same_as_libraries(refs, hyps)


@pytest.mark.parametrize(("refs", "hyps"), [
    ([""], ["abc def"]),  # no reference character or word: jiwer returns the number of insertions
    (["  ", "\t"], ["", " x "]),
    ([""], [""]),
    (["same words here"], ["same words here"]),
    (["a"], ["a"]),  # shorter than 4 tokens: sacrebleu gives 0 BLEU even for an exact match
])
def test_edge_cases_match_jiwer_and_sacrebleu(refs: list[str], hyps: list[str], counting: str) -> None:
    _assert_same_as_libraries(refs, hyps)


def test_empty_corpus() -> None:
    assert FieldScores().scores() == {"cer": 0.0, "wer": 0.0, "bleu": 100.0}
    assert field_scores([], []) == {"cer": 0.0, "wer": 0.0, "bleu": 100.0}


def test_token_lists_are_compared_as_space_joined_text(counting: str) -> None:
    original = [["EU", "rejects", "German", "call"], ["Peter", "Blackburn"], ["BRUSSELS", "1996-08-22"]]
    noisy = [["EU", "rejcets", "German", "call", "!"], ["Peter", "Blackburn"], ["BRUSSELS"]]
    expected = _library_scores([" ".join(t) for t in original], [" ".join(t) for t in noisy])
    assert _accumulate(original, noisy).exact_scores() == expected
    assert field_scores(original, noisy) == {name: round(value, 2) for name, value in expected.items()}
    # a list and the same text as a string score the same
    assert _accumulate(original, [" ".join(t) for t in noisy]) == _accumulate(original, noisy)


def _shards(items: list, rng: random.Random) -> list[list]:
    cuts = sorted(rng.randint(0, len(items)) for _ in range(rng.randint(0, 6)))
    return [items[a:b] for a, b in zip([0, *cuts], [*cuts, len(items)])]


def _merged(pairs: list[tuple], rng: random.Random) -> FieldScores:
    """Accumulate random shards separately, send each through to_dict/JSON or pickle as a worker would, merge."""
    total = FieldScores()
    for i, shard in enumerate(_shards(pairs, rng)):
        scores = _accumulate([r for r, _ in shard], [h for _, h in shard])
        if i % 2:
            returned = FieldScores.from_dict(json.loads(json.dumps(scores.to_dict())))
        else:
            returned = pickle.loads(pickle.dumps(scores))
        total.merge(returned)
    return total


@pytest.mark.parametrize("seed", range(5))
def test_merged_shards_equal_one_accumulator_on_real_data(seed: int, counting: str) -> None:
    sentences1, sentences2 = _mrpc_pairs()
    pairs = list(zip(sentences1, sentences2))
    whole = _accumulate(sentences1, sentences2)
    merged = _merged(pairs, random.Random(seed))
    assert merged == whole
    assert merged.exact_scores() == whole.exact_scores() == _library_scores(sentences1, sentences2)


@_both_paths
@given(_pairs, st.randoms(use_true_random=False))
def test_merged_shards_equal_one_accumulator(counting: str, pairs: list[tuple[str, str]], rng: random.Random) -> None:
    whole = _accumulate([r for r, _ in pairs], [h for _, h in pairs])
    merged = _merged(pairs, rng)
    assert merged == whole
    assert merged.scores() == whole.scores()


def test_to_dict_is_plain_ints() -> None:
    data = _accumulate(["a b c d e"], ["a b c d"]).to_dict()
    values = [v for value in data.values() for v in (value if isinstance(value, list) else [value])]
    assert all(type(v) is int for v in values)
    assert FieldScores.from_dict(data).to_dict() == data
    with pytest.raises(ValueError, match="n-gram orders"):
        FieldScores.from_dict({**data, "bleu_correct": [0, 0]})


def test_swapping_reference_and_hypothesis_changes_cer(counting: str) -> None:
    refs = _xquad_questions("en")[:200]
    hyps = [_perturb(q) for q in refs]  # shorter than the originals: dropped characters
    forward, backward = _accumulate(refs, hyps), _accumulate(hyps, refs)
    assert forward.exact_scores()["cer"] != backward.exact_scores()["cer"]
    assert forward.exact_scores() == _library_scores(refs, hyps)
    assert backward.exact_scores() == _library_scores(hyps, refs)
    # one sentence, by hand: 3 insertions over 3 reference characters vs 3 deletions over 6
    assert _accumulate(["abc"], ["abcdef"]).scores()["cer"] == 100.0
    assert _accumulate(["abcdef"], ["abc"]).scores()["cer"] == 50.0



@pytest.mark.parametrize("likely", [0, 1, 3, 50, None])
def test_a_likely_distance_never_changes_the_result(likely, counting: str):
    ref, hyp = " the quick brown fox jumps", "teh quikc brown fox jumped  "
    exact, hinted = FieldScores(), FieldScores()
    exact.add(ref, hyp)
    hinted.add(ref, hyp, likely)
    assert hinted.to_dict() == exact.to_dict()


#: Characters the 13a rules treat specially, and whitespace of several kinds (str.split splits on all of them).
_13A_ALPHABET = list("aZ09  .,-&;<>/'\n\t\u00a0\x1f\u2028{}~[]`!@(+):?é")


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_13A_ALPHABET) | st.characters(), max_size=40))
def test_the_fast_13a_tokenizer_is_sacrebleus(line):
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from noisecraft.stats import _bleu_tokenizer

    tokenize = _bleu_tokenizer()
    assert not isinstance(tokenize, Tokenizer13a)  # the fast path is the one in use with this sacrebleu
    # chunk by chunk (no newline), and whole (a newline: "-\n" joins two chunks)
    for text in (line, f"{line} &quot;<skipped>{line}\t&amp;&lt; {line}&gt;", f"{line}&quot;<skipped>-\n{line}&amp;&lt;&gt;"):
        assert tokenize(text) == Tokenizer13a()(text)


@_compiled
@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_13A_ALPHABET) | st.characters(), max_size=40))
def test_the_compiled_13a_chunks_are_sacrebleus(line):
    """The C counting cuts chunks that only 13a's first rule and a final "." or "," act on itself: a reference made
    of sacrebleu's tokens of the line matches all the line's n-grams, as many tokens."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from noisecraft._counting import Reference

    for text in (line, f"{line}. {line}, ({line}) {line}-{line}"):
        text = text.replace("\n", " ")  # lines holding a newline are tokenized whole, in Python
        expected = Tokenizer13a()(text)
        tokens = len(expected.split())
        counts = Reference(expected, expected).counts(text, text, stats._13A_ACTED_FLAGS, {}, stats._fast_13a().whole)
        assert counts[1:] == (tokens, *(max(tokens - n, 0) for n in range(4)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "the", "."]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "c", "the", ".", "x"]), max_size=12))
def test_bleu_matches_are_sacrebleus_clipped_ngram_counts(ref, hyp):
    from sacrebleu.metrics.helpers import extract_all_word_ngrams

    from noisecraft.stats import bleu_matches

    ref_ngrams, ref_len = extract_all_word_ngrams(" ".join(ref), 1, 4)
    hyp_ngrams, hyp_len = extract_all_word_ngrams(" ".join(hyp), 1, 4)
    expected = [0, 0, 0, 0]
    for gram in hyp_ngrams.keys() & ref_ngrams.keys():
        expected[len(gram) - 1] += min(hyp_ngrams[gram], ref_ngrams[gram])
    assert bleu_matches(" ".join(ref), " ".join(hyp)) == (ref_len, hyp_len, expected)


# ---- noisecraft._counting (C) against the pure-Python reference implementation ----

#: Words 13a splits (punctuation, entities, <skipped>, digits with , and -), words it leaves whole, non-ASCII.
_WORDS = ["a", "b", "the", "the.", "(x)", "end,", "Köln", "中文", "ไทย", "2,5", "1-2", "a-b", "&amp;", "&quot;x",
          "<skipped>", "é", "🙂", "it's", "x\ty", "(a).", "1.", "9,", "-a", "a-", "x-1", '"q",', "a<b", "U.S.", ",", ".",
          "$5", "(-", "'s"]
#: Gaps between words: jiwer splits on one space or 2+ whitespace characters, 13a on any; "-\n" joins for 13a.
_GAPS = [" ", " ", " ", "  ", "\t", "\n", " \t ", "\u00a0", "\u3000", "\x1f", "-\n", "\r\n"]


@st.composite
def _long_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A reference of up to 300 words from a small vocabulary (n-grams repeat; the C word distance works in
    blocks of 64 words) and a hypothesis made from it by random substitutions, deletions and insertions."""
    words = draw(st.lists(st.sampled_from(_WORDS), max_size=300))
    noisy = list(words)
    edits = st.tuples(st.sampled_from("sdi"), st.integers(0, 300), st.sampled_from([*_WORDS, "zz", "the,"]))
    for kind, position, word in draw(st.lists(edits, max_size=30)):
        position %= len(noisy) + 1
        if kind == "i":
            noisy.insert(position, word)
        elif position < len(noisy):
            if kind == "s":
                noisy[position] = word
            else:
                del noisy[position]

    def joined(parts: list[str]) -> str:
        gaps = draw(st.lists(st.sampled_from(_GAPS), min_size=len(parts) + 1, max_size=len(parts) + 1))
        return "".join(gap + part for gap, part in zip(gaps, parts)) + gaps[-1]

    return joined(words), joined(noisy)


@_compiled
@settings(max_examples=300, deadline=None)
@given(_long_pairs())
def test_compiled_counts_equal_python_counts_and_the_libraries(pair: tuple[str, str]) -> None:
    ref, hyp = pair
    assert stats._compiled_counts(ref, hyp) == stats._python_counts(ref, hyp)
    _assert_same_as_libraries([ref], [hyp])


@_compiled
@settings(max_examples=300, deadline=None)
@given(_pairs)
def test_compiled_counts_equal_python_counts_on_short_texts(pairs: list[tuple[str, str]]) -> None:
    for ref, hyp in pairs:
        assert stats._compiled_counts(ref, hyp) == stats._python_counts(ref, hyp)


def _xquad_contexts() -> list[str]:
    data = json.loads(corpus("xquad/xquad.en.json").read_text(encoding="utf-8"))
    return [paragraph["context"] for article in data["data"] for paragraph in article["paragraphs"]]


@_compiled
def test_compiled_counts_equal_python_counts_on_xquad_contexts() -> None:
    contexts = _xquad_contexts()
    assert len(contexts) == 240 and max(len(c.split()) for c in contexts) > 192  # four blocks of 64 words and more
    for context in contexts:
        for hyp in (_perturb(context), context, context[: len(context) // 2], _perturb(context[::-1])):
            assert stats._compiled_counts(context, hyp) == stats._python_counts(context, hyp)


@_compiled
def test_a_word_table_too_large_for_c_falls_back_to_rapidfuzz() -> None:
    # 9,000 distinct words: 9,001 rows of 141 blocks of 64 bits pass the C table's bound (2^20 words)
    ref = " ".join(f"w{i}" for i in range(9_000))
    hyp = " ".join(f"w{i}" if i % 10 else "typo" for i in range(9_000))
    reference = stats._compiled_reference(ref)
    assert reference.counts(hyp, hyp, None, None, None)[0] == -1
    assert stats._compiled_counts(ref, hyp) == stats._python_counts(ref, hyp)
    assert stats._compiled_counts(ref, hyp)[0] == 900


@_compiled
def test_the_chunk_memo_may_be_cleared_while_a_row_is_counted() -> None:
    from noisecraft._counting import Reference

    ref = "Hello, U.S. world. 1,000 (It is) a test &amp; 5-3, isn't it?"  # U.S., 1,000, &amp;, 5-3,: by the memo
    tokenize = stats._bleu_tokenizer()
    memo: dict[str, str] = {}

    def chunk(word: str) -> str:  # clears the memo as the real one does when full, before answering
        memo.clear()
        memo[word] = tokenized = tokenize(word)
        return tokenized

    reference = Reference(ref, tokenize(ref))
    hyp = "Hello, U.S. wrold. 1,000 (It is) a tset &amp; 5-3, isn't it?"
    assert reference.counts(hyp, hyp, stats._13A_ACTED_FLAGS, memo, chunk) == \
        reference.counts(hyp, tokenize(hyp), None, None, None)
    assert list(memo) == ["5-3,"]
    with pytest.raises(TypeError, match="tokenize_chunk returned int"):
        reference.counts(hyp, hyp, stats._13A_ACTED_FLAGS, {}, len)
    with pytest.raises(TypeError, match="128 bytes"):
        reference.counts(hyp, hyp, b"", {}, chunk)


@_compiled
@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_13A_ALPHABET) | st.characters(), max_size=40))
def test_the_compiled_13a_tokenizer_is_the_python_one(line):
    """A reference's 13a tokens are cut in C, chunk by chunk: the same string as the Python tokenizer's (and so as
    sacrebleu's, test_the_fast_13a_tokenizer_is_sacrebleus), for lines without a newline."""
    from noisecraft._counting import tokenize_13a

    fast = stats._fast_13a()
    for text in (line, f"{line} &quot;<skipped>{line}\t&amp;&lt; {line}&gt;", f"{line}. {line}, ({line}) {line}-{line}"):
        text = text.replace("\n", " ").rstrip()
        assert tokenize_13a(text, stats._13A_ACTED_FLAGS, fast.memo, fast.chunk) == stats._bleu_tokenizer()(text)


@_compiled
def test_the_compiled_13a_tokenizer_checks_its_arguments() -> None:
    from noisecraft._counting import tokenize_13a

    fast = stats._fast_13a()
    assert tokenize_13a("", stats._13A_ACTED_FLAGS, {}, fast.chunk) == ""
    assert tokenize_13a("<skipped> &amp;", stats._13A_ACTED_FLAGS, {}, fast.chunk) == "&"
    with pytest.raises(TypeError, match="tokenize_chunk returned int"):
        tokenize_13a("U.S.", stats._13A_ACTED_FLAGS, {}, len)
    with pytest.raises(TypeError, match="128 bytes"):
        tokenize_13a("a", b"", {}, fast.chunk)
    with pytest.raises(TypeError, match="line: str"):
        tokenize_13a(b"a", stats._13A_ACTED_FLAGS, {}, fast.chunk)
    with pytest.raises(ZeroDivisionError):  # the chunk tokenizer's own error comes through
        tokenize_13a("a (b) U.S.", stats._13A_ACTED_FLAGS, {}, lambda chunk: 1 / 0)


@_compiled
@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab é\u0301中🙂")) | st.characters(), max_size=30),
       st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.text(alphabet="ab é中🙂", max_size=3)), max_size=8),
       st.integers(0, 70))
def test_the_bounded_distance_is_rapidfuzzs(text, edits, bound) -> None:
    """The C diagonal search: rapidfuzz's distance where it is at most the bound, -1 past it (-2 only where the
    bound is too large for it to pay); texts made of a random text and typos in it, of mixed widths (Latin-1, BMP,
    astral) on the two sides."""
    from rapidfuzz.distance import Levenshtein

    from noisecraft._counting import bounded_distance

    noisy = text
    for start, length, replacement in edits:  # substitutions, insertions and deletions of up to 3 characters
        start %= len(noisy) + 1
        noisy = noisy[:start] + replacement + noisy[start + length:]
    for a, b in ((text, noisy), (noisy, text), (text, text + text[::-1])):
        distance = Levenshtein.distance(a, b)
        found = bounded_distance(a, b, bound)
        assert found == (distance if distance <= bound else -1) or (found == -2 and bound > 64)


@_compiled
@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab é中🙂")), min_size=1, max_size=6), st.integers(20, 120),
       st.lists(st.tuples(st.integers(0, 800), st.integers(0, 4), st.text(alphabet="ab é中🙂", max_size=4)), max_size=60),
       st.integers(0, 160))
def test_the_bounded_distance_is_rapidfuzzs_on_long_repetitive_texts(unit, repeats, edits, bound) -> None:
    """Hundreds of characters of a repeated unit (the diagonal search's slides run long) with up to 60 typos, bounds
    past one machine word (the search still runs where bound squared is small against the lengths): no corpus needed."""
    from rapidfuzz.distance import Levenshtein

    from noisecraft._counting import bounded_distance

    text = unit * repeats
    noisy = text
    for start, length, replacement in edits:
        start %= len(noisy) + 1
        noisy = noisy[:start] + replacement + noisy[start + length:]
    for a, b in ((text, noisy), (noisy, text)):
        distance = Levenshtein.distance(a, b)
        found = bounded_distance(a, b, bound)
        assert found == (distance if distance <= bound else -1) or (found == -2 and bound > 64)


@_compiled
def test_compiled_edit_spans_hold_their_field_names() -> None:
    """The names are read once: a name's comparison that grows or shrinks the list given cannot make the spans be
    summed outside the row's slots (or compare with a freed name)."""
    from noisecraft._counting import edit_spans

    fields = ["question"]

    class Growing(str):
        def __eq__(self, other: object) -> bool:
            fields.extend(["question"] * 63)
            return True

        __hash__ = str.__hash__

    log = [{"original": "abc", "replacement": "abcd", "kind": "k", "field": Growing("question")}]
    assert edit_spans(log, fields, {}) == (1, [4])
    assert stats._python_edit_spans([{**log[0], "field": None}], ("question",), Counter()) == (1, [0])


@_compiled
def test_the_bounded_distance_on_long_texts_and_bad_arguments() -> None:
    from rapidfuzz.distance import Levenshtein

    from noisecraft._counting import bounded_distance

    context = " ".join(_xquad_contexts()[:4])  # 2,186 characters, Latin-1 on one side and not the other
    noisy = context.replace("the", "teh").replace("ing", "ïng").replace("Super", "\u20acuper")
    distance = Levenshtein.distance(context, noisy)
    assert 64 < distance < 100  # a bound past one machine word of rapidfuzz's band, still cheap to search
    assert bounded_distance(context, noisy, distance) == distance
    assert bounded_distance(noisy, context, distance + 20) == distance
    assert bounded_distance(context, noisy, distance - 1) == -1
    assert bounded_distance(context, noisy, 10 * len(context)) == -2  # for rapidfuzz
    assert bounded_distance(context, context[::-1], 10 * len(context)) == -2
    assert bounded_distance("", "abc", 0) == -1 and bounded_distance("", "abc", 3) == 3
    with pytest.raises(ValueError, match=">= 0"):
        bounded_distance("a", "b", -1)
    with pytest.raises(TypeError, match="bound: int"):
        bounded_distance("a", b"b", 1)
    with pytest.raises(OverflowError):
        bounded_distance("a", "b", 2**70)


_FIELDS = ("question", "context", "title")
_edit_logs = st.lists(st.fixed_dictionaries({
    "original": st.text(alphabet="ab é中🙂", max_size=4), "replacement": st.text(alphabet="ab é中🙂", max_size=4),
    "kind": st.sampled_from(["keyboard", "ocr", "keyboard+ocr", "ocr+ocr"]),
    "field": st.sampled_from([*_FIELDS, "answers"]), "start": st.integers(0, 9)}), max_size=40)


@_compiled
@settings(max_examples=500, deadline=None)
@given(st.lists(_edit_logs, max_size=5), st.lists(st.sampled_from(_FIELDS), max_size=3, unique=True))
def test_compiled_edit_spans_equal_python_edit_spans(logs, fields) -> None:
    from collections import Counter

    from noisecraft._counting import edit_spans

    fields = tuple(fields)
    compiled, python = Counter(), Counter({"ocr": 2})
    compiled["ocr"] = 2  # counts already in the batch's counter go on
    for log in logs:
        assert edit_spans(log, fields, compiled) == stats._python_edit_spans(log, fields, python)
        assert compiled == python


@_compiled
def test_compiled_edit_spans_name_what_is_wrong() -> None:
    from noisecraft._counting import edit_spans

    edit = {"original": "a", "replacement": "b", "kind": "keyboard", "field": "question"}
    kinds: dict[str, int] = {}
    assert edit_spans([edit, {**edit, "replacement": "a"}, {**edit, "original": "abc"}], ["question"], kinds) == \
        (2, [1 + 1 + 3])
    assert kinds == {"keyboard": 2}
    for bad, error, message in [([edit, "edit"], TypeError, "must be a dict, not str"),
                                ([{k: v for k, v in edit.items() if k != "kind"}], KeyError, "kind"),
                                ([{**edit, "original": 3}], TypeError, "int"),
                                (None, TypeError, "edit log must be a sequence")]:
        with pytest.raises(error, match=message):
            edit_spans(bad, ("question",), {})
    with pytest.raises(TypeError, match="kinds: dict"):
        edit_spans([edit], ("question",), [])
    with pytest.raises(TypeError):  # a kind that cannot be a key
        edit_spans([{**edit, "kind": []}], ("question",), {})


@_compiled
def test_compiled_edit_spans_count_many_kinds_and_equal_kind_strings() -> None:
    """A row's kinds are tallied per kind object in a few slots, the rest go straight to the dict: twelve kinds, each
    as several equal but distinct str objects, still count as the Python version counts them."""
    from collections import Counter

    from noisecraft._counting import edit_spans

    log = [{"original": "a", "replacement": "b", "field": "question", "kind": "".join(["k", str(i % 12)])}
           for i in range(100)]
    assert len({id(edit["kind"]) for edit in log}) == 100
    compiled, python = Counter(), Counter()
    assert edit_spans(log, ("question",), compiled) == stats._python_edit_spans(log, ("question",), python) == \
        (100, [100])
    assert compiled == python and len(compiled) == 12


@_compiled
def test_compiled_counts_without_the_fast_13a_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a sacrebleu whose 13a rules this module does not know, lines are tokenized by sacrebleu and the C
    counting gets them tokenized."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    monkeypatch.setattr(stats, "_fast_13a", lambda: None)
    monkeypatch.setattr(stats, "_bleu_tokenizer", lambda: Tokenizer13a())
    ref, hyp = "The cat (a big one) sat, on the mat.", "The cat (a bgi one) sat, on teh mat!"
    assert stats._compiled_counts(ref, hyp) == stats._python_counts(ref, hyp)
    _assert_same_as_libraries([ref], [hyp])


@_both_paths
@given(st.text(alphabet=st.sampled_from(list("ab _-'.\t\u00e9\u0301\u0300\u093f\u0e31\u4e2d\u200d\u00b2\u2160"))
               | st.characters(), max_size=30))
def test_word_counts_are_the_word_patterns(counting: str, text: str) -> None:
    """Words as the per-word noise models count them (edit_rate's denominator): runs of word characters and marks,
    by the compiled table where built (characters past U+FFFF go to the pattern) and by the pattern."""
    from noisecraft.text_units import word_pattern

    assert stats._word_count.__wrapped__(text) == len(word_pattern().findall(text))



_EXTENSION_FIGURES = r"""
import json, sys
if sys.argv[1] == "blocked":  # what a machine without a C compiler at install sees: both imports fail
    sys.modules["noisecraft._counting"] = sys.modules["noisecraft._twister"] = None
import noisecraft.noise_models.keyboard as keyboard
from noisecraft import seeding, stats
from noisecraft.noise_models.registry import create

built = [stats._CompiledReference is not None, stats._bounded_distance is not None, stats._count_runs is not None,
         stats._edit_spans is not None, stats._tokenize_13a is not None, seeding._twisters is not None,
         keyboard._typo_tokens is not None]
texts = ["The cat sat on the mat.", "  Ünïcödé wörds,\tand 1-2 &amp; <skipped> x.", "emoji \U0001F600 text \ud800 end",
         "a" * 300 + " b", "", "Where did the 2,000-year-old cat sit, and why? (See page 3.)"]
hyps = [t[::-1] for t in texts] + [" ".join(reversed(t.split())) for t in texts]
rngs = seeding.example_rngs(7, "keyboard@2", "d", [f"q{i}" for i in range(len(texts))], "question")
noised = keyboard.typo_each_token(texts, rngs, None, 0.5, create("keyboard@2", lang="en").runtime())
config = stats.ConfigStats.empty(["question", "context"], per_word=True)
log = [{"field": f, "original": "cat", "replacement": r, "kind": k} for f, r, k in
       [("question", "act", "keyboard"), ("context", "cat", "keyboard"), ("context", "ca", "ocr+keyboard")]]
rows = [{"question": h, "original_question": t, "context": t, "original_context": h, "noise_edits": log[i % 4:]}
        for i, (t, h) in enumerate(zip(texts, hyps))]
config.add(len(rows) + 1, rows, {"empty": 1})
print(json.dumps({"built": built, "scores": stats.field_scores(texts * 2, hyps), "config": config.to_dict(),
                  "words": [stats._word_count(t) for t in texts], "noised": [list(n) for n in noised]}))
"""


def test_the_fallbacks_are_used_when_the_extensions_cannot_be_imported() -> None:
    # The ImportError branches themselves: in a process where importing noisecraft._counting and noisecraft._twister
    # fails, stats, seeding and keyboard@2 take their Python paths and give the same figures and records.
    import subprocess
    import sys

    if stats._CompiledReference is None:
        pytest.skip("noisecraft._counting is not built (no C compiler when the package was installed)")
    runs = {how: json.loads(subprocess.run([sys.executable, "-c", _EXTENSION_FIGURES, how], check=True,
                                           capture_output=True, text=True).stdout) for how in ("built", "blocked")}
    assert runs["built"].pop("built") == [True] * 7
    assert runs["blocked"].pop("built") == [False] * 7
    assert runs["blocked"] == runs["built"]


def test_a_built_extension_is_the_one_in_use() -> None:
    """stats.py imports all its C functions at once: a stale build of noisecraft._counting (older than stats.py) that
    lacks one turns the whole compiled path off, the figures the same but several times slower. Fail loudly there."""
    import importlib

    try:
        importlib.import_module("noisecraft._counting")
    except ImportError:
        pytest.skip("noisecraft._counting is not built (no C compiler when the package was installed)")
    assert stats._CompiledReference is not None, "noisecraft._counting is stale: rebuild it (pip install -e .)"


def test_the_word_flags_table_is_the_word_pattern_on_every_code_point_of_the_basic_plane():
    from noisecraft.text_units import word_pattern

    table = stats._word_flags()
    assert len(table) == 0x10000
    assert table == bytes(map(bool, map(word_pattern().match, map(chr, range(0x10000)))))
