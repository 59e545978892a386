"""FieldScores: mergeable CER/WER/BLEU sufficient statistics equal to jiwer's and sacrebleu's corpus figures."""

import json
import pickle
import random
from collections import Counter

import jiwer
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from noisecraft.core import stats
from noisecraft.core.stats import FieldScores, field_scores

from conftest import corpus

#: For @given tests: hypothesis's own deadline is off (the libraries' first calls import them).
_generated = settings(deadline=None)


def _library_scores(refs: list[str], hyps: list[str]) -> dict[str, float]:
    """The figures as jiwer and sacrebleu compute them over the whole corpus (percent, unrounded)."""
    return {
        "cer": 100 * jiwer.cer(reference=refs, hypothesis=hyps),
        "wer": 100 * jiwer.wer(reference=refs, hypothesis=hyps),
        "bleu": sacrebleu.corpus_bleu(hyps, [refs]).score,
    }


def _accumulate(refs: list, hyps: list) -> FieldScores:
    """One pair at a time (``add``): the figures must not depend on how a corpus is cut into batches."""
    scores = FieldScores()
    for ref, hyp in zip(refs, hyps, strict=True):
        scores.add(ref, hyp)
    return scores


def _assert_same_as_libraries(refs: list[str], hyps: list[str]) -> None:
    expected = _library_scores(refs, hyps)
    scores = _accumulate(refs, hyps)
    assert scores.exact_scores() == expected
    assert scores.scores() == {name: round(value, 2) for name, value in expected.items()}
    batch = FieldScores()
    batch.add_all(refs, hyps)  # the whole corpus as one batch: one word numbering, one BLEU call
    assert batch == scores
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
def test_xquad_questions_match_jiwer_and_sacrebleu(language: str) -> None:
    refs = _xquad_questions(language)
    hyps = [_perturb(q) if i % 5 else q for i, q in enumerate(refs)]  # every fifth question unchanged
    assert len(refs) == 1190 and hyps != refs
    _assert_same_as_libraries(refs, hyps)


def test_mrpc_pairs_match_jiwer_and_sacrebleu() -> None:
    sentences1, sentences2 = _mrpc_pairs()
    assert len(sentences1) == 408
    _assert_same_as_libraries(sentences1, sentences2)


# Pieces that exercise the libraries' preprocessing: whitespace runs, lone tabs/newlines (not word separators
# for jiwer), non-breaking and ideographic spaces, 13a's entity and <skipped> handling, punctuation, non-ASCII.
_PIECES = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "&amp;", "&quot;", "<skipped>", "-\n", " .", ",", "-", "'",
           "a", "b", "ab", "the", "Köln", "ß", "中文", "ไทย", "é", "🙂", "x1", "2,5"]
_texts = st.lists(st.sampled_from(_PIECES) | st.text(alphabet="ab éü中 .\t", max_size=3), max_size=8).map("".join)
_pairs = st.lists(st.tuples(_texts, _texts), min_size=1, max_size=12)


@_generated
@given(_pairs)
def test_generated_strings_match_jiwer_and_sacrebleu(pairs: list[tuple[str, str]]) -> None:
    refs, hyps = [r for r, _ in pairs], [h for _, h in pairs]
    _assert_same_as_libraries(refs, hyps)


@pytest.mark.parametrize(("refs", "hyps"), [
    ([""], ["abc def"]),  # no reference character or word: jiwer returns the number of insertions
    (["  ", "\t"], ["", " x "]),
    ([""], [""]),
    (["same words here"], ["same words here"]),
    (["a"], ["a"]),  # shorter than 4 tokens: sacrebleu gives 0 BLEU even for an exact match
])
def test_edge_cases_match_jiwer_and_sacrebleu(refs: list[str], hyps: list[str]) -> None:
    _assert_same_as_libraries(refs, hyps)


def test_empty_corpus() -> None:
    assert FieldScores().scores() == {"cer": 0.0, "wer": 0.0, "bleu": 100.0}
    assert field_scores([], []) == {"cer": 0.0, "wer": 0.0, "bleu": 100.0}


def test_token_lists_are_compared_as_space_joined_text() -> None:
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
def test_merged_shards_equal_one_accumulator_on_real_data(seed: int) -> None:
    sentences1, sentences2 = _mrpc_pairs()
    pairs = list(zip(sentences1, sentences2))
    whole = _accumulate(sentences1, sentences2)
    merged = _merged(pairs, random.Random(seed))
    assert merged == whole
    assert merged.exact_scores() == whole.exact_scores() == _library_scores(sentences1, sentences2)


@_generated
@given(_pairs, st.randoms(use_true_random=False))
def test_merged_shards_equal_one_accumulator(pairs: list[tuple[str, str]], rng: random.Random) -> None:
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


def test_swapping_reference_and_hypothesis_changes_cer() -> None:
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
def test_a_likely_distance_never_changes_the_result(likely):
    ref, hyp = " the quick brown fox jumps", "teh quikc brown fox jumped  "
    exact, hinted = FieldScores(), FieldScores()
    exact.add(ref, hyp)
    hinted.add(ref, hyp, likely)
    assert hinted.to_dict() == exact.to_dict()


#: Characters the 13a rules treat specially, and whitespace of several kinds (str.split splits on all of them).
_13A_ALPHABET = list("aZ09  .,-&;<>/'\n\t\u00a0\x1f\u2028{}~[]`!@(+):?é")


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=st.sampled_from(_13A_ALPHABET) | st.characters(), max_size=40))
def test_13a_word_by_word_is_sacrebleus_13a_of_the_line(line: str) -> None:
    """:func:`stats._tokenized` hands sacrebleu's tokenizer a line's words one by one (a line holding a newline
    whole): the same string as sacrebleu's tokenization of the whole line, as ``corpus_bleu`` makes it."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    for text in (line, f"{line} &quot;<skipped>{line}\t&amp;&lt; {line}&gt;", f"{line}&quot;<skipped>-\n{line}&amp;&lt;&gt;",
                 f"{line}. {line}, ({line}) {line}-{line} 1,000 U.S. 5-3, "):
        assert stats._tokenized(text) == Tokenizer13a()(text.rstrip())


#: Words 13a splits (punctuation, entities, <skipped>, digits with , and -), words it leaves whole, non-ASCII.
_WORDS = ["a", "b", "the", "the.", "(x)", "end,", "Köln", "中文", "ไทย", "2,5", "1-2", "a-b", "&amp;", "&quot;x",
          "<skipped>", "é", "🙂", "it's", "x\ty", "(a).", "1.", "9,", "-a", "a-", "x-1", '"q",', "a<b", "U.S.", ",", ".",
          "$5", "(-", "'s"]
#: Gaps between words: jiwer splits on one space or 2+ whitespace characters, 13a on any; "-\n" joins for 13a.
_GAPS = [" ", " ", " ", "  ", "\t", "\n", " \t ", "\u00a0", "\u3000", "\x1f", "-\n", "\r\n"]


@st.composite
def _long_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """A reference of up to 300 words from a small vocabulary (n-grams repeat) and a hypothesis made from it by random
    substitutions, deletions and insertions."""
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


@settings(max_examples=300, deadline=None)
@given(st.lists(_long_pairs(), min_size=1, max_size=3))
def test_long_texts_match_jiwer_and_sacrebleu(pairs: list[tuple[str, str]]) -> None:
    _assert_same_as_libraries([ref for ref, _ in pairs], [hyp for _, hyp in pairs])


def _xquad_contexts() -> list[str]:
    data = json.loads(corpus("xquad/xquad.en.json").read_text(encoding="utf-8"))
    return [paragraph["context"] for article in data["data"] for paragraph in article["paragraphs"]]


def test_xquad_contexts_match_jiwer_and_sacrebleu() -> None:
    """Paragraphs, each against itself, noised, cut short and reversed: the same reference four times a batch, as
    the questions of a SQuAD paragraph carry it."""
    contexts = _xquad_contexts()
    assert len(contexts) == 240 and max(len(c.split()) for c in contexts) > 192
    contexts = contexts[::3]  # 80 of them (jiwer's alignments of whole paragraphs take a while)
    refs = [context for context in contexts for _ in range(4)]
    hyps = [hyp for context in contexts
            for hyp in (_perturb(context), context, context[: len(context) // 2], _perturb(context[::-1]))]
    _assert_same_as_libraries(refs, hyps)


def test_a_hint_far_below_the_distance_on_a_long_text() -> None:
    """9,000 distinct words, every tenth replaced: the character distance is far past the likely one given (rapidfuzz
    widens its band until it finds it)."""
    ref = " ".join(f"w{i}" for i in range(9_000))
    hyp = " ".join(f"w{i}" if i % 10 else "typo" for i in range(9_000))
    hinted = FieldScores()
    hinted.add_all([ref, "abc"], [hyp, "abd"], [3, 1])
    assert (hinted.word_errors, hinted.char_errors) == (900 + 1, 4_400 + 1)
    assert hinted.exact_scores() == _library_scores([ref, "abc"], [hyp, "abd"])


def test_a_batch_must_pair_every_original() -> None:
    with pytest.raises(ValueError, match="2 originals but 1 noisy"):
        FieldScores().add_all(["a", "b"], ["a"])


def test_edit_spans_count_changed_edits_and_the_characters_they_touch() -> None:
    edit = {"original": "a", "replacement": "b", "kind": "keyboard", "field": "question"}
    log = [edit, {**edit, "replacement": "a"}, {**edit, "original": "abc"}, {**edit, "kind": "ocr+keyboard", "field": "context"}]
    kinds = Counter({"ocr": 2})  # counts already in the batch's counter go on
    assert stats._edit_spans(log, ("question", "context", "title"), kinds) == (3, [1 + 1 + 3, 1, 0])
    assert kinds == {"keyboard": 2, "ocr+keyboard": 1, "ocr": 2}
    assert stats._edit_spans([{**edit, "field": None}], ("question",), Counter()) == (1, [0])
