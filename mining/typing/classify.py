"""Align a clean text with its noisy version and name each edit (the kinds of :mod:`noisecraft.noise_models.typing_format`).

Characters are aligned by rapidfuzz's Levenshtein edit operations; a transposition is read off the operations
it leaves (two crossed substitutions, or an insertion and a deletion around one character), since rapidfuzz's
Damerau distances give no operations. Each operation is then classified from the characters around it:

* a letter deleted (``deletion``) or inserted: ``insertion-doubling`` when it repeats a letter beside it,
  ``insertion-neighbour`` when its key neighbours one of them on the layout, else ``insertion-other``;
* a letter replaced: ``case`` (same letter, other case), ``substitution-neighbour`` (neighbouring keys) or
  ``substitution-other``, with the key distance;
* two letters swapped: ``transposition``;
* a space deleted between two characters (``whitespace-merge``), inserted inside a word (``whitespace-split``),
  or any other whitespace change (``whitespace-trim``);
* punctuation dropped (``final-question-dropped`` for the text's last ``?``, else ``punctuation-dropped``) or
  added (``punctuation-added``); a replaced punctuation mark is a drop and an addition;
* a word with edits at half its characters or more (two at least) is one ``word-replacement``.

Word edits belong to the clean word they touch (an insertion after a word's last letter, or the space after it,
to that word): words are those of :func:`noisecraft.core.text_units.word_spans` in the model's language
(``doesn't`` and ``long-term`` whole; Thai, Chinese and Japanese segmented), the words ``typing@1`` samples.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from noisecraft.core.text_units import word_spans
from noisecraft.noise_models.typing_format import distance_bin, is_punctuation, position_bin

#: Raw operation: (operation, clean index, clean characters, noisy characters).
Op = tuple[str, int, str, str]


@dataclass(frozen=True)
class TypedEdit:
    """One classified edit: its kind, the clean word it hits (-1: none), the fifth of the word it falls in (-1: none),
    the key distance of a substitution, and the character a ``punctuation-added`` edit added."""

    kind: str
    word: int = -1
    position: int = -1
    distance: str | None = None
    char: str = ""


@dataclass(frozen=True)
class AlignedText:
    """A clean text's words (offsets) and the classified edits that turn it into the noisy text."""

    words: tuple[tuple[int, int], ...]
    edits: tuple[TypedEdit, ...]
    final_question: bool
    punctuation: int
    surplus_space: bool


def _transposition(op: object, following: object, clean: str, noisy: str) -> int | None:
    """The clean index of a swapped pair that two consecutive edit operations make, or ``None``."""
    a_tag, i, j = op.tag, op.src_pos, op.dest_pos  # type: ignore[attr-defined]
    b_tag, k, m = following.tag, following.src_pos, following.dest_pos  # type: ignore[attr-defined]
    if i + 1 >= len(clean) or clean[i] == clean[i + 1]:
        return None
    swapped = clean[i + 1] + clean[i]
    if a_tag == b_tag == "replace" and k == i + 1 and m == j + 1 and noisy[j:j + 2] == swapped:
        return i
    if a_tag == "insert" and b_tag == "delete" and k == i + 1 and noisy[j:j + 2] == swapped:
        return i
    if a_tag == "delete" and b_tag == "insert" and k == i + 2 and m == j + 1 and noisy[j:j + 2] == swapped:
        return i
    return None


def char_ops(clean: str, noisy: str) -> Iterator[Op]:
    """rapidfuzz's edit operations as (operation, clean index, clean chars, noisy chars), swaps merged."""
    ops = list(Levenshtein.editops(clean, noisy))
    k = 0
    while k < len(ops):
        op = ops[k]
        swap = _transposition(op, ops[k + 1], clean, noisy) if k + 1 < len(ops) else None
        if swap is not None:
            yield "transpose", swap, clean[swap:swap + 2], clean[swap + 1] + clean[swap]
            k += 2
            continue
        i, j = op.src_pos, op.dest_pos
        if op.tag == "delete":
            yield "delete", i, clean[i], ""
        elif op.tag == "insert":
            yield "insert", i, "", noisy[j]
        else:
            yield "replace", i, clean[i], noisy[j]
        k += 1


class Classifier:
    """Classifies the edits of one clean text in ``lang`` on a layout (``positions``: :func:`key_positions` of it)."""

    def __init__(self, clean: str, positions: dict[str, tuple[int, float]], lang: str = "en") -> None:
        self.clean = clean
        self.positions = positions
        self.words = tuple(word_spans(clean, lang))
        self.owner = [-1] * len(clean)
        for w, (s, e) in enumerate(self.words):
            self.owner[s:e] = [w] * (e - s)
        stripped = clean.rstrip()
        self.final_question = len(stripped) - 1 if stripped.endswith("?") else -1

    def _word_edit(self, kind: str, word: int, index: int, distance: str | None = None) -> TypedEdit:
        if word < 0:
            return TypedEdit(kind, -1, -1, distance)
        s, e = self.words[word]
        return TypedEdit(kind, word, position_bin(index - s, e - s), distance)

    def _insert_owner(self, i: int) -> int:
        """The word an insertion before ``clean[i]`` belongs to: the word it ends or is inside, else the next one."""
        if i > 0 and self.owner[i - 1] >= 0:
            return self.owner[i - 1]
        return self.owner[i] if i < len(self.clean) else -1

    def _spaced(self, i: int) -> bool:
        """Whether ``clean[i]`` lies between two characters that are not spaces."""
        clean = self.clean
        return 0 < i < len(clean) - 1 and not clean[i - 1].isspace() and not clean[i + 1].isspace()

    def deletion(self, i: int) -> TypedEdit:
        char = self.clean[i]
        if char.isspace():
            if self._spaced(i):
                word = self.owner[i - 1] if self.owner[i - 1] >= 0 else self.owner[i + 1]
                return self._word_edit("whitespace-merge", word, i)
            return TypedEdit("whitespace-trim")
        if is_punctuation(char):
            return TypedEdit("final-question-dropped" if i == self.final_question else "punctuation-dropped")
        return self._word_edit("deletion", self.owner[i], i)

    def insertion(self, i: int, char: str) -> TypedEdit:
        clean = self.clean
        before = clean[i - 1] if i > 0 else ""
        after = clean[i] if i < len(clean) else ""
        if char.isspace():
            inside = bool(before) and bool(after) and not before.isspace() and not after.isspace()
            return self._word_edit("whitespace-split", self.owner[i], i) if inside else TypedEdit("whitespace-trim")
        if is_punctuation(char):
            return TypedEdit("punctuation-added", char=char)
        around = [c for c in (before, after) if c and not c.isspace()]
        if any(char.lower() == c.lower() for c in around):
            kind = "insertion-doubling"
        elif any(distance_bin(c, char, self.positions) == "1" for c in around):
            kind = "insertion-neighbour"
        else:
            kind = "insertion-other"
        return self._word_edit(kind, self._insert_owner(i), i)

    def classify(self, op: Op) -> list[TypedEdit]:
        name, i, old, new = op
        if name == "transpose":
            word = self.owner[i] if self.owner[i] >= 0 else self.owner[i + 1]
            return [self._word_edit("transposition", word, i)]
        if name == "delete":
            return [self.deletion(i)]
        if name == "insert":
            return [self.insertion(i, new)]
        if old.isspace() or new.isspace() or is_punctuation(old) or is_punctuation(new):
            return [self.deletion(i), self.insertion(i, new)]
        if old.lower() == new.lower() or old.upper() == new.upper():
            return [self._word_edit("case", self.owner[i], i)]
        distance = distance_bin(old, new, self.positions)
        kind = "substitution-neighbour" if distance == "1" else "substitution-other"
        return [self._word_edit(kind, self.owner[i], i, distance)]


def _collapse_replaced_words(edits: list[TypedEdit], words: tuple[tuple[int, int], ...]) -> list[TypedEdit]:
    """One ``word-replacement`` instead of the edits of a word changed at half its characters or more."""
    per_word: dict[int, int] = {}
    for edit in edits:
        if edit.word >= 0:
            per_word[edit.word] = per_word.get(edit.word, 0) + 1
    replaced = {w for w, n in per_word.items() if n >= max(2, -(-(words[w][1] - words[w][0]) // 2))}
    kept = [edit for edit in edits if edit.word not in replaced]
    return kept + [TypedEdit("word-replacement", w) for w in sorted(replaced)]


def align_texts(clean: str, noisy: str, positions: dict[str, tuple[int, float]], lang: str = "en") -> AlignedText:
    """The classified edits turning ``clean`` into ``noisy`` (see the module docstring).

    A dropped final ``?`` is taken out before the alignment: left in, a minimal alignment may swap it for a
    neighbouring letter (``ab?`` -> ``ba`` is ``a`` deleted and ``?`` replaced by ``a``, two edits of the wrong kinds).
    """
    classifier = Classifier(clean, positions, lang)
    final = classifier.final_question
    edits: list[TypedEdit] = []
    aligned = clean
    if final >= 0 and not noisy.rstrip().endswith("?"):
        edits.append(TypedEdit("final-question-dropped"))
        aligned = clean[:final] + clean[final + 1:]
    for name, i, old, new in char_ops(aligned, noisy):
        i = i + 1 if aligned is not clean and i >= final else i
        edits += classifier.classify((name, i, old, new))
    edits = _collapse_replaced_words(edits, classifier.words)
    punctuation = sum(1 for i, c in enumerate(clean) if is_punctuation(c) and i != final)
    surplus = clean != clean.strip() or "  " in clean
    return AlignedText(classifier.words, tuple(edits), final >= 0, punctuation, surplus)
