"""Keyboard layouts as data: key coordinates per layout, neighbours derived from distance.

A layout is a TOML file in ``builders/keyboards/`` (or any path): four rows of keys, each row an
``offset`` (x of its first key, in key widths) and the characters each key types without and
with Shift. Key ``i`` of row ``r`` sits at ``(r, offset + i)``; two keys are neighbours when
``max(|Δrow|, |Δx|) <= 1``, which with the usual row stagger is exactly the physical ring of keys
around a key (``s`` -> ``w e a d z x`` on QWERTY). Adding a language is adding a file.

A layout file may also say, in its ``[typing]`` table, how the letters that are not on a key of
their own are typed: ``dead_keys`` (a mark typed before a base letter, with the letters it composes
with, e.g. Spanish ``´`` + ``o`` = ``ó``) and ``input_methods`` (per language, e.g. Vietnamese Telex
on QWERTY). ``keyboard@1`` ignores that table (its outputs are frozen); ``keyboard@2`` types through
it (:class:`TypingTable`), so it never writes a letter plus a stray combining mark.
"""

from __future__ import annotations

import tomllib
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from noisecraft.errors import ConfigError

UNSUPPORTED_LANGUAGES = {
    "zh": "Chinese is typed through an input method (pinyin, Cangjie...), not a fixed key per "
    "character, so a key-neighbour typo model does not apply; zh is not supported yet.",
    "ja": "Japanese is typed through an input method; ja is not supported yet.",
}


@dataclass(frozen=True)
class Key:
    """One physical key: its row, its x coordinate and the text of its two layers."""

    row: int
    x: float
    base: str
    shift: str


def _is_letter_like(text: str) -> bool:
    """Letters or combining marks only (a Devanagari conjunct key counts)."""
    return bool(text) and all(unicodedata.category(ch)[0] in "LM" for ch in text)


def _is_lower_letter(text: str) -> bool:
    """A letter-like key text with no upper/title-case letter in it (uncased scripts qualify)."""
    return _is_letter_like(text) and not any(unicodedata.category(ch) in ("Lu", "Lt") for ch in text)


class NeighbourTable(dict[str, tuple[str, ...]]):
    """``char -> neighbouring key texts``; characters not on the layout are looked up through
    their canonical decomposition, so ``ế`` gets the neighbours of ``e`` with its marks kept."""

    def __missing__(self, char: str) -> tuple[str, ...]:
        decomposed = unicodedata.normalize("NFD", char)
        base, marks = decomposed[:1], decomposed[1:]
        found: tuple[str, ...] = ()
        if marks and base != char and base in self:
            found = tuple(unicodedata.normalize("NFC", n + marks) for n in dict.__getitem__(self, base))
        self[char] = found
        return found


#: Dead keys a layout file may name in ``[typing] dead_keys``, and the combining mark(s) each puts on a letter.
DEAD_KEY_MARKS = {
    "acute": "\u0301", "grave": "\u0300", "circumflex": "\u0302", "diaeresis": "\u0308", "tilde": "\u0303",
    "caron": "\u030c", "breve": "\u0306", "ring": "\u030a", "cedilla": "\u0327", "ogonek": "\u0328",
    "tonos": "\u0301", "dialytika": "\u0308", "dialytika_tonos": "\u0308\u0301",
}
_DEAD_KEY_SYMBOL = {"acute": "´", "grave": "`", "circumflex": "^", "diaeresis": "¨", "tilde": "~", "caron": "ˇ",
                    "breve": "˘", "ring": "°", "cedilla": "¸", "ogonek": "˛", "tonos": "΄", "dialytika": "¨",
                    "dialytika_tonos": "΅"}


def _vietnamese_letters() -> frozenset[str]:
    """Every letter Vietnamese Telex composes: the 12 vowels (a ă â e ê i o ô ơ u ư y) with none or one of
    the 5 tone marks, both cases (đ has no decomposition and is left out: see :data:`INPUT_METHODS`)."""
    vowels = ["a", "a\u0306", "a\u0302", "e", "e\u0302", "i", "o", "o\u0302", "o\u031b", "u", "u\u031b", "y"]
    tones = ["", "\u0301", "\u0300", "\u0309", "\u0303", "\u0323"]
    letters = {unicodedata.normalize("NFC", v + t) for v in vowels for t in tones}
    return frozenset(letters | {ch.upper() for ch in letters})


#: Input methods a layout file may name per language in ``[typing] input_methods``: the letters the method
#: composes from a base-letter key plus modifier keys, and the sentence a dataset card prints.
INPUT_METHODS: dict[str, tuple[frozenset[str], str]] = {
    "telex": (_vietnamese_letters(),
              "Vietnamese letters with diacritics are typed with Telex (base letter, then modifier keys); a typo hits "
              "the base letter's neighbour and keeps the diacritics only where they make another Vietnamese letter "
              "(ụ -> ị), otherwise the letter is left alone, and so is đ (typed dd)"),
}


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M"


@dataclass(frozen=True)
class KeyboardLayout:
    """A keyboard layout: name, the languages it is native to, its keys, and how it types what has no key.

    ``dead_keys`` holds ``(name, letters)`` pairs (``("acute", "aeiouAEIOU")``: ``´`` then ``o`` types ``ó``),
    ``input_methods`` ``(lang, method)`` pairs (``("vi", "telex")``), ``typing`` the file's own sentence on
    the matter; all three are read by ``keyboard@2`` only.
    """

    name: str
    description: str
    languages: tuple[str, ...]
    source: str
    keys: tuple[Key, ...]
    dead_keys: tuple[tuple[str, str], ...] = ()
    input_methods: tuple[tuple[str, str], ...] = ()
    typing: str = ""

    @classmethod
    def from_toml(cls, path: Path) -> KeyboardLayout:
        """Read and validate a layout file; errors name the file and the row."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read keyboard layout: {exc}") from exc
        rows = data.get("rows")
        if not isinstance(rows, list) or not rows:
            raise ConfigError(f"{path}: a layout needs a non-empty [[rows]] list")
        keys: list[Key] = []
        for r, row in enumerate(rows):
            base, shift, offset = row.get("base"), row.get("shift"), row.get("offset")
            if not isinstance(base, list) or not isinstance(shift, list) or len(base) != len(shift):
                raise ConfigError(f"{path}: row {r + 1}: 'base' and 'shift' must be lists of equal length")
            if not isinstance(offset, (int, float)):
                raise ConfigError(f"{path}: row {r + 1}: 'offset' must be a number")
            keys.extend(Key(r, float(offset) + i, b, s) for i, (b, s) in enumerate(zip(base, shift)))
        dead_keys, input_methods, typing = _typing_rules(path, data.get("typing", {}))
        return cls(
            name=str(data.get("name", path.stem)),
            description=str(data.get("description", "")),
            languages=tuple(data.get("languages", ())),
            source=str(data.get("source", "")),
            keys=tuple(keys),
            dead_keys=dead_keys,
            input_methods=input_methods,
            typing=typing,
        )

    def _near(self, key: Key) -> list[Key]:
        return [k for k in self.keys if k is not key and abs(k.row - key.row) <= 1 and abs(k.x - key.x) <= 1]

    def row_neighbours(self) -> NeighbourTable:
        """NoiseQA keys: lower-case letters, each to the letter keys just left and right of it."""
        table: dict[str, set[str]] = {}
        for key in self.keys:
            if len(key.base) != 1 or not _is_lower_letter(key.base):
                continue
            for other in self.keys:
                if other.row == key.row and abs(other.x - key.x) == 1 and _is_lower_letter(other.base):
                    table.setdefault(key.base, set()).add(other.base)
        return NeighbourTable({c: tuple(sorted(n)) for c, n in table.items() if n})

    def distance_neighbours(self) -> NeighbourTable:
        """CoLeS keys: every key within distance 1, on the same layer (so case is preserved).

        A letter's neighbours are restricted to letter keys, so ``R`` gives ``E T D F``, never
        the ``$`` of the number row; digits and symbols take any neighbouring key.
        """
        table: dict[str, set[str]] = {}
        for key in self.keys:
            near = self._near(key)
            for layer in ("base", "shift"):
                char = getattr(key, layer)
                if len(char) != 1:
                    continue
                found = {getattr(k, layer) for k in near} - {"", char}
                if _is_letter_like(char):  # a letter's typo stays a letter: no '$' inside a word
                    found = {f for f in found if _is_letter_like(f)}
                table.setdefault(char, set()).update(found)
        return NeighbourTable({c: tuple(sorted(n)) for c, n in table.items() if n})

    def typing_table(self, mode: str, lang: str) -> TypingTable:
        """``keyboard@2``'s table for ``mode`` (``noiseqa`` or ``coles``) and the text's language.

        Neighbours are those of :meth:`row_neighbours` (NoiseQA) or :meth:`distance_neighbours` (CoLeS),
        without the decomposition fallback, and a key that types a combining mark only ever replaces a
        combining mark (and a letter only a letter), so no mark moves to another base. Characters that
        are not on a key are typed through the file's dead keys and the language's input method, and
        otherwise left alone.
        """
        direct = self.row_neighbours() if mode == "noiseqa" else self.distance_neighbours()
        table = {ch: found for ch, found in
                 ((ch, tuple(n for n in near if _is_mark(n[0]) == _is_mark(ch))) for ch, near in direct.items()) if found}
        on_keys = {text for key in self.keys for text in (key.base, key.shift) if len(text) == 1}
        composed: dict[str, tuple[str, ...]] = {}
        for name, letters in self.dead_keys:
            mark = DEAD_KEY_MARKS[name]
            composable = {c for c in (unicodedata.normalize("NFC", b + mark) for b in letters) if len(c) == 1}
            _compose(composed, composable - on_keys, table, composable)
        method = dict(self.input_methods).get(lang)
        if method is not None:
            letters = INPUT_METHODS[method][0]
            _compose(composed, letters - on_keys, table, letters)
        key_marks = frozenset(ch for key in self.keys for text in (key.base, key.shift) for ch in text if _is_mark(ch))
        return TypingTable({**composed, **table}, key_marks)

    def typing_description(self, lang: str) -> str:
        """How this layout types letters that have no key of their own (``keyboard@2``), for the dataset card."""
        parts = [self.typing.rstrip(".")] if self.typing else []
        for name, letters in self.dead_keys:
            mark = DEAD_KEY_MARKS[name]
            made = " ".join(unicodedata.normalize("NFC", b + mark) for b in letters if not b.isupper())
            parts.append(f"the dead key {_DEAD_KEY_SYMBOL[name]} ({name.replace('_', ' ')}) types {made}")
        if self.dead_keys:
            example = self._dead_key_example()
            parts.append("a typo on such a letter hits the base letter's neighbour and keeps the accent only where the "
                         f"dead key composes it{example}, otherwise the letter is left alone")
        method = dict(self.input_methods).get(lang)
        if method is not None:
            parts.append(INPUT_METHODS[method][1])
        if not self.dead_keys and method is None:
            parts.append("every letter is typed with a key of its own, and characters that are not on the layout are "
                         "left alone")
        else:
            parts.append("other characters that are not on the layout are left alone")
        if any(_is_mark(text[0]) for key in self.keys for text in (key.base, key.shift) if text):
            parts.append("a key that types a combining mark (vowel sign, tone mark, haraka) only ever replaces a "
                         "combining mark, so no mark is moved to another letter")
        return "; ".join(parts) + "."

    def _dead_key_example(self) -> str:
        """`` (ó -> í, never ṕ)``: a letter kept with its accent and one left out, from this layout's own tables."""
        table = self.row_neighbours()
        for name, letters in self.dead_keys:
            mark = DEAD_KEY_MARKS[name]
            allowed = {unicodedata.normalize("NFC", b + mark) for b in letters}
            for base in letters:
                made = [unicodedata.normalize("NFC", n + mark) for n in table.get(base, ()) if len(n) == 1]
                kept = [m for m in made if m in allowed]
                never = [m for m in made if m not in allowed]
                if kept and never:
                    return f" ({unicodedata.normalize('NFC', base + mark)} -> {kept[0]}, never {never[0]})"
        return ""


def _compose(out: dict[str, tuple[str, ...]], targets: set[str] | frozenset[str], table: dict[str, tuple[str, ...]],
             allowed: set[str] | frozenset[str]) -> None:
    """For each letter in ``targets`` (base letter + marks), the letters made by the same marks on the base
    letter's neighbours, kept only when they are in ``allowed`` (what the dead key or input method makes)."""
    for target in targets:
        decomposed = unicodedata.normalize("NFD", target)
        base, marks = decomposed[0], decomposed[1:]
        if not marks:
            continue
        made = {unicodedata.normalize("NFC", n + marks) for n in table.get(base, ()) if len(n) == 1}
        found = tuple(sorted(made & set(allowed) - {target}))
        if found:
            out[target] = found


def _typing_rules(path: Path, typing: object) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...], str]:
    """The ``[typing]`` table of a layout file: dead keys, input methods and the note."""
    if not isinstance(typing, dict):
        raise ConfigError(f"{path}: [typing] must be a table")
    dead, methods = typing.get("dead_keys", {}), typing.get("input_methods", {})
    if not isinstance(dead, dict) or not all(isinstance(v, str) for v in dead.values()):
        raise ConfigError(f"{path}: [typing] dead_keys must map a dead key name to the letters it composes with")
    unknown = sorted(set(dead) - set(DEAD_KEY_MARKS))
    if unknown:
        raise ConfigError(f"{path}: [typing] unknown dead key {', '.join(unknown)}; known: {', '.join(DEAD_KEY_MARKS)}")
    if not isinstance(methods, dict) or not all(v in INPUT_METHODS for v in methods.values()):
        raise ConfigError(f"{path}: [typing] input_methods must map a language to one of: {', '.join(INPUT_METHODS)}")
    return tuple(dead.items()), tuple(methods.items()), str(typing.get("note", ""))


class TypingTable:
    """``keyboard@2``: what a typo can turn each typed character of a word into, on one layout.

    A word is cut into *units*: a character with the combining marks that follow it, except marks that
    are keys of their own (Devanagari matras, Thai vowel and tone marks, Arabic harakat), which are units
    themselves. A unit's candidates come from its NFC form (a key, a dead-key letter or an input-method
    letter); a letter followed by mark keys (Hindi क़ as क + ़) takes its base key's neighbours and keeps
    the marks. A unit written decomposed in the text is replaced in decomposed form.
    """

    def __init__(self, table: dict[str, tuple[str, ...]], key_marks: frozenset[str]) -> None:
        self.table = table
        self.key_marks = key_marks
        self._memo: dict[str, tuple[str, ...]] = {}

    def units(self, word: str) -> list[tuple[int, int]]:
        """``(start, end)`` of each unit of ``word``."""
        spans: list[tuple[int, int]] = []
        key_marks = self.key_marks
        i, n = 0, len(word)
        while i < n:
            j = i + 1
            if not _is_mark(word[i]) or word[i] not in key_marks:
                while j < n and _is_mark(word[j]) and word[j] not in key_marks:
                    j += 1
            spans.append((i, j))
            i = j
        return spans

    def candidates(self, unit: str) -> tuple[str, ...]:
        """What a typo may turn ``unit`` into (empty: the unit is not typed on this layout, or has no neighbour
        that keeps it a well-formed letter)."""
        found = self._memo.get(unit)
        if found is None:
            found = self._memo[unit] = self._candidates(unit)
        return found

    def _candidates(self, unit: str) -> tuple[str, ...]:
        nfc = unicodedata.normalize("NFC", unit)
        if len(nfc) == 1 and nfc in self.table:
            found = self.table[nfc]
            return tuple(unicodedata.normalize("NFD", f) for f in found) if unit != nfc else found
        decomposed = unicodedata.normalize("NFD", unit)  # a letter typed as its base key, then mark keys
        base, marks = decomposed[0], decomposed[1:]
        if not marks or _is_mark(base) or not all(m in self.key_marks for m in marks):
            return ()
        return tuple(n + marks for n in self.table.get(base, ()))


def _layout_dir() -> Path:
    return Path(str(resources.files("noisecraft") / "keyboards"))


@cache
def builtin_layouts() -> dict[str, KeyboardLayout]:
    """All layouts shipped in ``builders/keyboards``, by name."""
    layouts = (KeyboardLayout.from_toml(p) for p in sorted(_layout_dir().glob("*.toml")))
    return {layout.name: layout for layout in layouts}


def load_layout(name_or_path: str) -> KeyboardLayout:
    """A built-in layout by name, or a layout file by path."""
    layouts = builtin_layouts()
    if name_or_path in layouts:
        return layouts[name_or_path]
    path = Path(name_or_path)
    if path.suffix == ".toml" and path.is_file():
        return KeyboardLayout.from_toml(path)
    raise ConfigError(
        f"unknown keyboard layout {name_or_path!r}; built-in layouts: {', '.join(sorted(layouts))} "
        "(or pass the path of a .toml layout file)"
    )


def layout_for_language(lang: str) -> KeyboardLayout:
    """The native layout of a language (ISO 639-1 code)."""
    if lang in UNSUPPORTED_LANGUAGES:
        raise ConfigError(UNSUPPORTED_LANGUAGES[lang])
    for layout in builtin_layouts().values():
        if lang in layout.languages:
            return layout
    known = sorted({lang for layout in builtin_layouts().values() for lang in layout.languages})
    raise ConfigError(
        f"no keyboard layout for language {lang!r}; languages with a layout: {', '.join(known)} "
        "(pass layout=NAME or a .toml file to use another)"
    )
