"""SQuAD v1.1 and XQuAD: question answering over a context, in the SQuAD JSON format."""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

from noisecraft.core.citations import SQUAD_CITATION, XQUAD_CITATION
from noisecraft.core.schema import FeatureSpec, list_of, value
from noisecraft.core.text_files import read_text
from noisecraft.errors import InputError
from noisecraft.sources.base import SourceAdapter, SourceInfo, check_string, require_text

_QA_COMMON = dict(
    task_category="question-answering",
    default_split="validation",
    default_fields=("question",),
    span_labels={"context": "answers"},
)

SQUAD = SourceInfo(name="squad", hub_id="rajpurkar/squad", license="cc-by-sa-4.0", citation=SQUAD_CITATION,
                   pretty="SQuAD v1.1", **_QA_COMMON)  # type: ignore[arg-type]
XQUAD = SourceInfo(name="xquad", hub_id="google/xquad", license="cc-by-sa-4.0", citation=XQUAD_CITATION,
                   languages=("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh"),
                   pretty="XQuAD", **_QA_COMMON)  # type: ignore[arg-type]


def squad_features() -> FeatureSpec:
    """The Hub features of SQuAD/XQuAD."""
    return {
        "id": value("string"),
        "title": value("string"),
        "context": value("string"),
        "question": value("string"),
        "answers": {"text": list_of(value("string")), "answer_start": list_of(value("int32"))},
    }


#: ``answer_start`` is an int32 column on the Hub and in the output parquet.
INT32_MAX = 2**31 - 1
#: Nesting depth reported when ``json`` gives up (RecursionError); a SQuAD file nests 9 levels
#: (down to an answer object).
DEEP_NESTING = 64
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _expect(path: Path, cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise InputError(path, problem, where)


def _line_column(text: str, position: int) -> str:
    """``line L column C`` (both from 1) of a character position, as ``json`` reports them."""
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    return f"line {line} column {column}"


def _deep_nesting(text: str, depth: int) -> int:
    """Where the nesting of arrays/objects in a JSON text first goes deeper than ``depth`` (strings,
    which may hold brackets, are skipped); 0 if it never does."""
    level = 0
    for match in _JSON_TOKEN.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            level += 1
            if level > depth:
                return match.start()
        elif bracket in "]}":
            level -= 1
    return 0


_DECODER = json.JSONDecoder()
#: What JSON counts as whitespace between tokens.
_SPACE = re.compile(r"[ \t\n\r]*")


def _json_value(path: Path, text: str, pos: int) -> tuple[Any, int]:
    """The JSON value that starts at ``pos`` and the position after it, or :func:`_json_error`. Only called where
    all the text before ``pos`` is valid, so the error is the one ``json.loads`` gives for the whole text."""
    try:
        return _DECODER.raw_decode(text, pos)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _json_error(path, text, exc) from None


def _not_json(path: Path, text: str) -> InputError:
    """The error of a text found invalid between values (a missing ``,`` or ``:``, data after the end): the one
    ``json.loads`` reports for the whole text, with its wording and position."""
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        return _json_error(path, text, exc)
    raise AssertionError(f"{path}: json reads the text that squad_articles found invalid")


def _json_error(path: Path, text: str, exc: Exception) -> InputError:
    """A one-line error naming the file and the line and column where its text goes wrong: invalid (truncated,
    corrupt), or nested too deeply for ``json`` (RecursionError)."""
    if isinstance(exc, json.JSONDecodeError):
        return InputError(path, f"not valid JSON (truncated or corrupt?): {exc.msg}", f"line {exc.lineno} column {exc.colno}")
    return InputError(path, f"JSON nested too deeply to read (over {DEEP_NESTING} levels here; a SQuAD file has 9): "
                            "corrupt or not a SQuAD file", _line_column(text, _deep_nesting(text, DEEP_NESTING)))


def _not_squad(path: Path) -> InputError:
    return InputError(path, "not a SQuAD file: expected an object with a 'data' list", "top level")


def _after_space(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()


def squad_articles(path: Path, text: str) -> Iterator[Any]:
    """The items of the ``data`` list of a SQuAD JSON text, each parsed by ``json`` when it is asked for, then the
    rest of the document, checked as ``json.loads`` checks it (the same errors): a file is never held parsed whole
    (about 2 KB of Python objects per question), and a build's workers start on the first article's questions
    while the others are still text. A top level that is not an object with one ``data`` list is an error."""
    pos = _after_space(text, 0)
    if not text.startswith("{", pos):
        _json_value(path, text, pos)  # invalid JSON is that error; valid, it is not a SQuAD file
        raise _not_squad(path)
    found = False
    pos = _after_space(text, pos + 1)
    if text.startswith("}", pos):  # the empty object
        pos += 1
    else:
        while True:  # "key": value pairs, as json reads an object
            if not text.startswith('"', pos):
                raise _not_json(path, text)
            key, pos = _json_value(path, text, pos)
            pos = _after_space(text, pos)
            if not text.startswith(":", pos):
                raise _not_json(path, text)
            pos = _after_space(text, pos + 1)
            if key == "data":
                if found:
                    raise InputError(path, "the top-level object has 'data' twice (json would keep the last one)",
                                     "top level")
                if not text.startswith("[", pos):
                    _json_value(path, text, pos)
                    raise _not_squad(path)
                found = True
                pos = yield from _list_items(path, text, pos)
            else:
                _, pos = _json_value(path, text, pos)
            pos = _after_space(text, pos)
            if not text.startswith((",", "}"), pos):
                raise _not_json(path, text)
            pos += 1
            if text[pos - 1] == "}":
                break
            pos = _after_space(text, pos)
    if _after_space(text, pos) != len(text):
        raise _not_json(path, text)
    if not found:
        raise _not_squad(path)


def _list_items(path: Path, text: str, pos: int) -> Generator[Any, None, int]:
    """The items of the JSON list that starts at ``pos``, parsed one at a time; returns the position after it."""
    pos = _after_space(text, pos + 1)
    if text.startswith("]", pos):
        return pos + 1
    while True:
        item, pos = _json_value(path, text, pos)
        yield item
        pos = _after_space(text, pos)
        if not text.startswith((",", "]"), pos):
            raise _not_json(path, text)
        if text[pos] == "]":
            return pos + 1
        pos = _after_space(text, pos + 1)


def _answer(path: Path, where: str, context: str, answer: Any) -> tuple[str, int]:
    """One answer: its text and an ``answer_start`` (an int32, not a bool) that locates it in the context."""
    _expect(path, isinstance(answer, dict), where, f"expected an object with 'text' and 'answer_start', "
                                                   f"got {type(answer).__name__}")
    text, start = answer.get("text"), answer.get("answer_start")
    _expect(path, isinstance(text, str) and type(start) is int, where,
            f"expected 'text' (string) and 'answer_start' (integer), got {type(text).__name__} and {type(start).__name__}")
    _expect(path, 0 <= start <= INT32_MAX, where, f"answer_start {start} is not an offset in [0, 2**31)")
    _expect(path, text != "", where, "empty answer text")
    check_string(path, where, "text", text)
    found = context[start : start + len(text)]
    _expect(path, found == text, where, f"answer span does not match its context: answer_start {start} gives {found!r}, "
                                        f"answer text is {text!r}")
    return text, start


#: Where a question's id was first seen: ``(article, title, paragraph, question)``, numbered from 1. The location
#: text is composed only for an error (composing it for every question cost half of a large file's checking).
Seen = dict[str, tuple[int, str, int, int]]


def _question_where(a: int, title: str, p: int, q: int) -> str:
    return f"article {a} ({title!r}), paragraph {p}, question {q}"


def _question_row(path: Path, where: str, title: str, context: str, qa: Any, seen: Seen,
                  place: tuple[int, str, int, int]) -> dict[str, Any]:
    """One question as a Hub row, its id unique in the file and every answer located in the context (the checked
    path: every problem is an error naming the question; ``place`` is its :data:`Seen` location)."""
    _expect(path, isinstance(qa, dict), where, f"expected an object, got {type(qa).__name__}")
    qid = qa.get("id")
    where = f"{where} (id {qid!r})"
    _expect(path, isinstance(qid, str) and qid != "", where, "missing question 'id'")
    check_string(path, where, "id", qid)
    first = seen.get(qid)
    if first is not None:
        raise InputError(path, f"duplicate question id (first at {_question_where(*first)} (id {qid!r}))", where)
    seen[qid] = place
    question = require_text(path, where, "question", qa.get("question"))
    _expect(path, qa.get("is_impossible") is not True, where,
            "unanswerable question (SQuAD 2.0 'is_impossible'): this source reads SQuAD v1.1, where every question "
            "has an answer")
    answers = qa.get("answers")
    _expect(path, isinstance(answers, list), where, "missing 'answers' list")
    located = [_answer(path, f"{where}, answer {n}", context, a) for n, a in enumerate(answers, start=1)]
    return {"id": qid, "title": title, "context": context, "question": question,
            "answers": {"text": [t for t, _ in located], "answer_start": [s for _, s in located]}}


def _writable(text: str) -> bool:
    """Whether a string encodes as UTF-8 (no lone surrogate); ASCII, the common case, is known without encoding."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _plain_paragraph_rows(a: int, title: str, p: int, paragraph: dict[str, Any], seen: Seen) -> list[dict[str, Any]] | None:
    """The rows of a paragraph in which every check passes, made without composing any error location; ``None``
    when anything is off (nothing is recorded then: the checked path reads the paragraph again and names the
    problem). Its tests are those of the checked path, or stricter (exact JSON types), so it accepts nothing
    that path refuses and builds the same rows."""
    context = paragraph.get("context")
    if type(context) is not str or not context.strip() or not _writable(context):
        return None
    rows: list[dict[str, Any]] = []
    places: list[tuple[str, tuple[int, str, int, int]]] = []
    for q, qa in enumerate(paragraph["qas"], start=1):
        if type(qa) is not dict:
            return None
        qid, question, answers = qa.get("id"), qa.get("question"), qa.get("answers")
        if (type(qid) is not str or not qid or qid in seen or not _writable(qid) or type(question) is not str
                or not question.strip() or not _writable(question) or qa.get("is_impossible") is True
                or type(answers) is not list):
            return None
        texts, starts = [], []
        for answer in answers:
            if type(answer) is not dict:
                return None
            text, start = answer.get("text"), answer.get("answer_start")
            if (type(text) is not str or type(start) is not int or not 0 <= start <= INT32_MAX or not text
                    or context[start : start + len(text)] != text or not _writable(text)):
                return None
            texts.append(text)
            starts.append(start)
        places.append((qid, (a, title, p, q)))
        rows.append({"id": qid, "title": title, "context": context, "question": question,
                     "answers": {"text": texts, "answer_start": starts}})
    if len({qid for qid, _ in places}) < len(places):
        return None  # an id repeated inside the paragraph
    seen.update(places)
    return rows


def _article_rows(path: Path, a: int, article: Any, seen: Seen) -> Iterator[dict[str, Any]]:
    """The rows of one article (``data[a - 1]``): each paragraph's context, each of its questions."""
    _expect(path, isinstance(article, dict) and isinstance(article.get("paragraphs"), list), f"article {a}",
            "expected an object with a 'paragraphs' list")
    title = check_string(path, f"article {a}", "title", article.get("title", ""))
    for p, paragraph in enumerate(article["paragraphs"], start=1):
        if isinstance(paragraph, dict) and isinstance(paragraph.get("qas"), list):
            plain = _plain_paragraph_rows(a, title, p, paragraph, seen)
            if plain is not None:
                yield from plain
                continue
        where = f"article {a} ({title!r}), paragraph {p}"
        _expect(path, isinstance(paragraph, dict) and isinstance(paragraph.get("qas"), list), where,
                "expected an object with 'context' and a 'qas' list")
        context = require_text(path, where, "context", paragraph.get("context"))
        for q, qa in enumerate(paragraph["qas"], start=1):
            yield _question_row(path, f"{where}, question {q}", title, context, qa, seen, (a, title, p, q))


def squad_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a SQuAD v1.1-format file in file order, made as they are asked for, checking structure, types and
    every answer span, so that nothing that passes here can fail later at the parquet write (ints fit int32,
    text is valid UTF-8). The file's text is read whole; its articles are parsed one at a time
    (:func:`squad_articles`), so what the rows are made from is one article, not the parsed file."""
    text = read_text(path)
    seen: Seen = {}
    for a, article in enumerate(squad_articles(path, text), start=1):
        yield from _article_rows(path, a, article, seen)
    _expect(path, bool(seen), "top level", "no questions found")


def parse_squad_json(path: Path) -> list[dict[str, Any]]:
    """Every row of a SQuAD v1.1-format file (:func:`squad_rows`), checked."""
    return list(squad_rows(path))


class SquadAdapter(SourceAdapter):
    """SQuAD v1.1 (English) or XQuAD (``lang``): the Hub copy, or a SQuAD JSON file."""

    def __init__(self, info: SourceInfo) -> None:
        self.info = info

    def feature_spec(self) -> FeatureSpec:
        return squad_features()

    def read_file(self, path: Path, lang: str, split: str) -> Iterator[dict[str, Any]]:
        # SQuAD and XQuAD publish no unlabelled split: every question must have its answers
        return squad_rows(path)

    def hub_config(self, lang: str) -> str | None:
        return f"xquad.{lang}" if self.info is XQUAD else None

    def hub_row_id(self, row: dict[str, Any], position: int) -> str:
        return row["id"]
