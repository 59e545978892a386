"""SQuAD v1.1 and XQuAD: question answering over a context, in the SQuAD JSON format."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisecraft.citations import SQUAD_CITATION, XQUAD_CITATION
from noisecraft.errors import InputError
from noisecraft.sources.base import SourceAdapter, SourceInfo, check_string, require_text
from noisecraft.text_files import read_text

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


def squad_features() -> Any:
    """The Hub features of SQuAD/XQuAD."""
    import datasets

    return datasets.Features({
        "id": datasets.Value("string"),
        "title": datasets.Value("string"),
        "context": datasets.Value("string"),
        "question": datasets.Value("string"),
        "answers": {
            "text": datasets.List(datasets.Value("string")),
            "answer_start": datasets.List(datasets.Value("int32")),
        },
    })


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


def load_json(path: Path) -> Any:
    """A JSON document, or an error naming the file and the line/column where it goes wrong:
    invalid (truncated, corrupt) or nested too deeply for the parser (RecursionError)."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON (truncated or corrupt?): {exc.msg}",
                         f"line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        where = _line_column(text, _deep_nesting(text, DEEP_NESTING))
        raise InputError(path, f"JSON nested too deeply to read (over {DEEP_NESTING} levels here; a SQuAD file has 9): "
                               "corrupt or not a SQuAD file", where) from None


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


def _question_row(path: Path, where: str, title: str, context: str, qa: Any, seen: dict[str, str]) -> dict[str, Any]:
    """One question as a Hub row, its id unique in the file and every answer located in the context."""
    _expect(path, isinstance(qa, dict), where, f"expected an object, got {type(qa).__name__}")
    qid = qa.get("id")
    where = f"{where} (id {qid!r})"
    _expect(path, isinstance(qid, str) and qid != "", where, "missing question 'id'")
    check_string(path, where, "id", qid)
    _expect(path, qid not in seen, where, f"duplicate question id (first at {seen.get(qid)})")
    seen[qid] = where
    question = require_text(path, where, "question", qa.get("question"))
    _expect(path, qa.get("is_impossible") is not True, where,
            "unanswerable question (SQuAD 2.0 'is_impossible'): this source reads SQuAD v1.1, where every question "
            "has an answer")
    answers = qa.get("answers")
    _expect(path, isinstance(answers, list), where, "missing 'answers' list")
    located = [_answer(path, f"{where}, answer {n}", context, a) for n, a in enumerate(answers, start=1)]
    return {"id": qid, "title": title, "context": context, "question": question,
            "answers": {"text": [t for t, _ in located], "answer_start": [s for _, s in located]}}


def _article_rows(path: Path, a: int, article: Any, seen: dict[str, str]) -> Iterator[dict[str, Any]]:
    """The rows of one article (``data[a - 1]``): each paragraph's context, each of its questions."""
    _expect(path, isinstance(article, dict) and isinstance(article.get("paragraphs"), list), f"article {a}",
            "expected an object with a 'paragraphs' list")
    title = check_string(path, f"article {a}", "title", article.get("title", ""))
    for p, paragraph in enumerate(article["paragraphs"], start=1):
        where = f"article {a} ({title!r}), paragraph {p}"
        _expect(path, isinstance(paragraph, dict) and isinstance(paragraph.get("qas"), list), where,
                "expected an object with 'context' and a 'qas' list")
        context = require_text(path, where, "context", paragraph.get("context"))
        for q, qa in enumerate(paragraph["qas"], start=1):
            yield _question_row(path, f"{where}, question {q}", title, context, qa, seen)


def parse_squad_json(path: Path) -> list[dict[str, Any]]:
    """Rows of a SQuAD v1.1-format file, checking structure, types and every answer span, so that
    nothing that passes here can fail later at the parquet write (ints fit int32, text is valid UTF-8)."""
    doc = load_json(path)
    _expect(path, isinstance(doc, dict) and isinstance(doc.get("data"), list), "top level",
            "not a SQuAD file: expected an object with a 'data' list")
    seen: dict[str, str] = {}
    rows = [row for a, article in enumerate(doc["data"], start=1) for row in _article_rows(path, a, article, seen)]
    _expect(path, bool(rows), "top level", "no questions found")
    return rows


class SquadAdapter(SourceAdapter):
    """SQuAD v1.1 (English) or XQuAD (``lang``): the Hub copy, or a SQuAD JSON file."""

    def __init__(self, info: SourceInfo) -> None:
        self.info = info

    def features(self) -> Any:
        return squad_features()

    def read_file(self, path: Path, lang: str, split: str) -> list[dict[str, Any]]:
        # SQuAD and XQuAD publish no unlabelled split: every question must have its answers
        return parse_squad_json(path)

    def hub_config(self, lang: str) -> str | None:
        return f"xquad.{lang}" if self.info is XQUAD else None

    def hub_row_id(self, row: dict[str, Any], position: int) -> str:
        return row["id"]
