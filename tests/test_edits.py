"""Edit logs: replay exactly, leave text outside edits byte-identical, carry spans over."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from noisecraft.core.edits import Edit, align, apply_edits, compose, noised_from_edits, overlaps, remap_span, whole_field


def test_apply_edits_golden():
    text = "When did Beyonce start?"
    edits = [Edit(2, 3, "e", "r", "keyboard"), Edit(9, 16, "Beyonce", "Beyoncé", "x")]
    assert apply_edits(text, edits) == "Whrn did Beyoncé start?"


def test_apply_edits_rejects_inconsistent_logs():
    with pytest.raises(ValueError, match="does not match"):
        apply_edits("abc", [Edit(0, 1, "x", "y", "k")])
    with pytest.raises(ValueError, match="overlaps"):
        apply_edits("abcd", [Edit(1, 3, "bc", "", "k"), Edit(2, 3, "c", "", "k")])


def test_remap_span_moves_with_edits_before_and_refuses_edits_inside():
    edits = [Edit(0, 1, "a", "xyz", "k"), Edit(10, 11, "k", "", "k")]
    assert remap_span(3, 6, edits) == (5, 8)
    assert remap_span(11, 13, edits) == (12, 14)
    assert remap_span(0, 2, edits) is None
    assert remap_span(9, 11, edits) is None


def test_whole_field_is_one_replacement_and_a_no_op_when_equal():
    assert whole_field("b a", "a b", "sort").edits == (Edit(0, 3, "b a", "a b", "sort"),)
    assert whole_field("a b", "a b", "sort").edits == ()


@st.composite
def text_and_edits(draw):
    text = draw(st.text(min_size=0, max_size=60))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        if edits and start < edits[-1].end:
            continue
        edits.append(Edit(start, end, text[start:end], draw(st.text(max_size=4)), "k"))
    return text, edits


@given(text_and_edits())
def test_replay_and_untouched_text(case):
    text, edits = case
    noised = noised_from_edits(text, edits)
    assert apply_edits(text, noised.edits) == noised.text
    # every gap between edits is copied byte for byte, and spans in gaps remap onto themselves
    cursor = 0
    for edit in list(edits) + [Edit(len(text), len(text), "", "", "end")]:
        if cursor < edit.start:
            span = remap_span(cursor, edit.start, edits)
            assert span is not None
            assert noised.text[span[0] : span[1]] == text[cursor : edit.start]
        cursor = max(cursor, edit.end)


@given(text_and_edits(), st.integers(0, 60), st.integers(0, 10))
def test_span_not_overlapped_is_carried_over(case, start, length):
    text, edits = case
    start = min(start, len(text))
    end = min(start + length, len(text))
    if any(overlaps(e.start, e.end, [(start, end)]) for e in edits):
        return
    noised = noised_from_edits(text, edits)
    span = remap_span(start, end, edits)
    assert span is not None
    assert noised.text[span[0] : span[1]] == text[start:end]


# a small alphabet makes equal slices (undone edits, shared characters) likely; any character may still appear
CHARS = st.one_of(st.sampled_from("ab é日"), st.characters())


@st.composite
def edit_log(draw, text, kinds=("k",)):
    """A valid log against ``text``: sorted, non-overlapping, with insertions, deletions and edits that touch."""
    edits = []
    cursor = 0
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(cursor, len(text)))
        end = draw(st.integers(start, min(len(text), start + 5)))
        edits.append(Edit(start, end, text[start:end], draw(st.text(CHARS, max_size=4)), draw(st.sampled_from(kinds))))
        cursor = end
    return edits


@st.composite
def two_steps(draw):
    """An original text, a first log against it, and a second log against the intermediate text."""
    original = draw(st.text(CHARS, max_size=40))
    first = draw(edit_log(original, ("f1", "f2")))
    second = draw(edit_log(apply_edits(original, first), ("s",)))
    return original, first, second


def assert_sorted_and_disjoint(edits):
    for before, after in zip(edits, edits[1:]):
        assert before.end <= after.start
        assert before.start < after.start or before.end == before.start


def test_align_golden():
    assert align("kitten", "sitting", "asr") == (
        Edit(0, 1, "k", "s", "asr"),
        Edit(4, 5, "e", "i", "asr"),
        Edit(6, 6, "", "g", "asr"),
    )
    # consecutive non-equal opcodes become one edit
    assert align("a cat sat", "a dog sat", "mt") == (Edit(2, 5, "cat", "dog", "mt"),)
    assert align("", "", "mt") == ()


@given(st.text(CHARS, max_size=60), st.text(CHARS, max_size=60))
def test_align_replays_exactly_and_minimally(original, noisy):
    edits = align(original, noisy, "mt")
    assert apply_edits(original, edits) == noisy
    assert all(edit.original != edit.replacement and edit.kind == "mt" for edit in edits)
    # merged runs are separated by at least one unchanged character
    assert all(before.end < after.start for before, after in zip(edits, edits[1:]))
    # minimal: the edits together cost exactly the edit distance of the two texts
    assert sum(Levenshtein.distance(e.original, e.replacement) for e in edits) == Levenshtein.distance(original, noisy)


@given(st.text(CHARS, max_size=60))
def test_align_identical_texts_is_empty(text):
    assert align(text, text, "mt") == ()


def test_align_long_text():
    rng = random.Random(0)
    original = "".join(rng.choice("abcé 日") for _ in range(20_000))
    chars = list(original)
    for _ in range(300):
        chars[rng.randrange(len(chars))] = rng.choice("xyz")
    noisy = "".join(chars)
    edits = align(original, noisy, "asr")
    assert apply_edits(original, edits) == noisy
    assert 0 < len(edits) <= 300


def test_compose_typo_then_swap_merges_and_shifts_the_rest():
    original = "the quick brown fox"
    first = [Edit(0, 3, "the", "a", "determiner"), Edit(5, 6, "u", "y", "keyboard")]
    intermediate = apply_edits(original, first)
    assert intermediate == "a qyick brown fox"
    second = [Edit(3, 5, "yi", "iy", "swap"), Edit(14, 15, "f", "ph", "phonetic")]
    assert apply_edits(intermediate, second) == "a qiyck brown phox"
    assert compose(original, first, second) == (
        Edit(0, 3, "the", "a", "determiner"),
        Edit(5, 7, "ui", "iy", "keyboard+swap"),
        Edit(16, 17, "f", "ph", "phonetic"),
    )


def test_merged_kinds_are_one_object_per_name():
    """The statistics' C tally matches kinds by identity: a merged kind built per edit would miss it every time."""
    original = "the quick brown fox"
    first = [Edit(5, 6, "u", "y", "keyboard")]
    second = [Edit(5, 7, "yi", "iy", "swap")]
    one, other = compose(original, first, second), compose(original, list(first), list(second))
    assert one[0].kind == "keyboard+swap" and one[0].kind is other[0].kind


def test_compose_boundary_insertions_and_touching_edits_merge():
    original = "on the mat"
    first = [Edit(3, 6, "the", "teh", "misspelling")]
    # an insertion at the end of the replacement "teh"
    assert compose(original, first, [Edit(6, 6, "", "e", "insertion")]) == (Edit(3, 6, "the", "tehe", "misspelling+insertion"),)
    # an insertion at its start, and a deletion that starts where it ends
    assert compose(original, first, [Edit(3, 3, "", "x", "insertion"), Edit(6, 7, " ", "", "deletion")]) == (
        Edit(3, 7, "the ", "xteh", "misspelling+insertion+deletion"),
    )
    # one character away from the replacement is untouched text: kept apart, shifted back
    assert compose(original, first, [Edit(7, 7, "", "x", "insertion")]) == (
        Edit(3, 6, "the", "teh", "misspelling"),
        Edit(7, 7, "", "x", "insertion"),
    )
    # insertions on both sides of an inserted word have no position of their own: one edit
    assert compose("ab", [Edit(1, 1, "", "!", "punct")], [Edit(1, 1, "", "¿", "ins"), Edit(2, 2, "", "?", "ins")]) == (
        Edit(1, 1, "", "¿!?", "punct+ins"),
    )


def test_compose_deletion_before_a_merged_edit_at_the_same_intermediate_offset_comes_first():
    # "b" is deleted and "c" becomes "XY" at the same intermediate offset; the second step edits only inside "XY"
    first = [Edit(1, 2, "b", "", "deletion"), Edit(2, 3, "c", "XY", "keyboard")]
    assert compose("abcd", first, [Edit(2, 3, "Y", "Z", "swap")]) == (
        Edit(1, 2, "b", "", "deletion"),
        Edit(2, 3, "c", "XZ", "keyboard+swap"),
    )


def test_compose_second_edit_spanning_two_first_edits_merges_all_and_kinds_stay_distinct():
    first = [Edit(0, 1, "a", "A", "case"), Edit(2, 3, "c", "C", "case+keyboard")]
    second = [Edit(0, 3, "AbC", "xyz", "keyboard")]
    assert compose("abcd", first, second) == (Edit(0, 3, "abc", "xyz", "case+keyboard"),)


def test_compose_second_step_that_restores_the_original_is_dropped():
    original = "the color red"
    first = [Edit(0, 3, "the", "a", "determiner"), Edit(7, 8, "o", "ou", "spelling")]
    second = [Edit(5, 7, "ou", "o", "americanize")]
    assert apply_edits(apply_edits(original, first), second) == "a color red"
    assert compose(original, first, second) == (Edit(0, 3, "the", "a", "determiner"),)
    assert compose(original, first[1:], [Edit(4, 10, "colour", "color", "americanize")]) == ()


@given(two_steps())
def test_compose_replays_both_steps(case):
    original, first, second = case
    edits = compose(original, first, second)
    assert apply_edits(original, edits) == apply_edits(apply_edits(original, first), second)
    assert_sorted_and_disjoint(edits)
    assert all(edit.original != edit.replacement for edit in edits)


@given(two_steps())
def test_compose_keeps_edits_that_do_not_interact(case):
    original, first, second = case
    edits = compose(original, first, second)
    changed_first = [e for e in first if e.original != e.replacement]
    kept_first = [e for e in edits if e.kind in ("f1", "f2")]
    assert all(e in changed_first for e in kept_first)
    # an unmerged edit of the second step keeps its text and kind, moved by what the first step changed before it
    intermediate = apply_edits(original, first)
    for edit in (e for e in edits if e.kind == "s"):
        shift = sum(len(e.replacement) - len(e.original) for e in first if e.end <= edit.start)
        assert edit._replace(start=edit.start + shift, end=edit.end + shift) in second
        assert intermediate[edit.start + shift : edit.end + shift] == edit.original
    assert all(e.kind in ("f1", "f2", "s", "f1+s", "f2+s", "f1+f2+s", "f2+f1+s") for e in edits)


@given(st.text(CHARS, max_size=40).flatmap(lambda text: st.tuples(st.just(text), edit_log(text))))
def test_compose_with_an_empty_step_is_the_other_step(case):
    text, edits = case
    changed = tuple(e for e in edits if e.original != e.replacement)
    assert compose(text, edits, []) == changed
    assert compose(text, [], edits) == changed
