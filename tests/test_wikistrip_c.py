"""The wikitext walk in C (``noisecraft._wikistrip``) against the Python walk it replaces and mwparserfromhell.

``mining.wiki_markup.strip_tokens`` walks mwparserfromhell's token list in C where the optional extension is built,
else in Python (``_Walk``, the reference). Both must give the same string, or both raise ``Unsupported`` (the same
message): on every line and whole revision of the shared dumps, on generated markup, and on generated token lists
(well formed or broken, which the tokenizer never gives but the walk must judge the same way). The tests of the C
walk skip where it is not built (tests/test_compiled_extensions.py makes that a failure in CI).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import tracemalloc
import types
from functools import reduce
from operator import add
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mwparserfromhell.parser import tokens as T
from test_mining_wikiedits import MARKUP_PIECES, READABLE_DUMPS, _full_parse

from noisecraft.mining import wiki_markup
from noisecraft.mining.mediawiki import Revision, read_dump
from noisecraft.mining.wiki_text import _REFERENCES

from conftest import corpus


def _c_walk():
    if wiki_markup._CompiledWalker is None:
        pytest.skip("noisecraft._wikistrip is not built")
    tokens, _, entity, visible = wiki_markup._library()
    return wiki_markup._CompiledWalker(tokens, wiki_markup.Unsupported, entity, visible).strip


def _tokens(text: str) -> list[Any]:
    return wiki_markup._library()[1]().tokenize(text, 0, False)


def _outcome(walk, token_list: list[Any]) -> tuple[str, str]:
    """What a walk gives: ("text", the string), or the exception's class name and message."""
    try:
        return "text", walk(token_list)
    except Exception as exc:  # noqa: BLE001 - the class and message are what is compared
        return type(exc).__name__, str(exc)



def test_strip_tokens_uses_the_c_walk_where_it_is_built():
    _c_walk()
    walk = wiki_markup._stripper()[1]
    assert type(getattr(walk, "__self__", None)) is wiki_markup._CompiledWalker


def test_the_c_walk_equals_the_python_walk_and_the_full_parse_on_every_line_and_revision_of_the_real_dumps():
    c_walk = _c_walk()
    revisions = {item.text for name in READABLE_DUMPS for item in read_dump(corpus(f"mediawiki/{name}"))
                 if isinstance(item, Revision) and item.text}
    lines = {line for text in revisions for line in text.split("\n")}
    pieces = lines | revisions
    pieces |= {_REFERENCES.sub("", piece) for piece in pieces}  # as strip_markup hands them over
    assert len(lines) > 700 and len(revisions) > 200
    walked = 0
    for piece in pieces:
        token_list = _tokens(piece)
        outcome = _outcome(c_walk, token_list)
        assert outcome == _outcome(wiki_markup._python_walk, token_list), piece[:200]
        if outcome[0] == "text":
            assert outcome[1] == _full_parse(piece), piece[:200]
            walked += 1
    assert walked > 0.99 * len(pieces)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(MARKUP_PIECES), max_size=40).map("".join))
def test_the_c_walk_equals_the_python_walk_and_the_full_parse_on_generated_markup(text):
    token_list = _tokens(text)
    outcome = _outcome(_c_walk(), token_list)
    assert outcome == _outcome(wiki_markup._python_walk, token_list)
    if outcome[0] == "text":
        assert outcome[1] == _full_parse(text)
    else:
        assert outcome[0] == "Unsupported"


# --- token lists as the builder would read them, then broken: both walks must judge every stream the same way ----

TEXTS = ["", "a", "Foo bar", " ", "\n", "\n\n", "\n\n\n\n", "x\n\n\n", "ref", "b", "REF", "math", "span", "é日本", "41",
         "3a3", "amp", "nbsp", "bogus", "zz"]


def _concat(lists: list[list[Any]]) -> list[Any]:
    return reduce(add, lists, [])


def _wrapped(open_: Any, close: Any, separator: Any | None = None):
    """open_, segments (separated when separator is given), close."""
    def build(children):
        segments = st.lists(children, min_size=1, max_size=3 if separator else 1)
        joined = segments.map(lambda parts: _concat([part + [separator()] for part in parts[:-1]] + [parts[-1]]))
        return joined.map(lambda inner: [open_()] + inner + [close()])
    return build


def _template(children):
    name = children
    param = st.tuples(st.booleans(), children, children).map(
        lambda p: [T.TemplateParamSeparator()] + (p[1] + [T.TemplateParamEquals()] + p[2] if p[0] else p[2]))
    return st.tuples(name, st.lists(param, max_size=3)).map(
        lambda t: [T.TemplateOpen()] + t[0] + _concat(t[1]) + [T.TemplateClose()])


def _external_link(children):
    return st.tuples(st.booleans(), children, st.lists(children, max_size=2)).map(
        lambda t: [T.ExternalLinkOpen(brackets=t[0])] + t[1] + _concat([[T.ExternalLinkSeparator()] + c for c in t[2]])
        + [T.ExternalLinkClose()])


_value = st.sampled_from(TEXTS).map(lambda text: T.Text(text=text))
_entity_value = st.sampled_from(["amp", "nbsp", "eacute", "41", "3a3", "10", "bogus", "zz"]).map(
    lambda text: T.Text(text=text))  # mostly valid, some that mwparserfromhell's normalisation refuses
ENTITIES = st.one_of(
    _entity_value.map(lambda v: [T.HTMLEntityStart(), v, T.HTMLEntityEnd()]),
    _entity_value.map(lambda v: [T.HTMLEntityStart(), T.HTMLEntityNumeric(), v, T.HTMLEntityEnd()]),
    st.tuples(st.sampled_from(["x", "X"]), _entity_value).map(
        lambda t: [T.HTMLEntityStart(), T.HTMLEntityNumeric(), T.HTMLEntityHex(char=t[0]), t[1], T.HTMLEntityEnd()]))


def _tag(children):
    """A tag with a name (plain or not), attributes, and contents, or self-closed, or (broken) closed at once."""
    name = st.one_of(_value.map(lambda v: [v]), children)
    attribute = st.tuples(children, st.booleans(), children).map(
        lambda a: [T.TagAttrStart(pad_first=" ", pad_before_eq="", pad_after_eq="")] + a[0]
        + ([T.TagAttrEquals(), T.TagAttrQuote(char='"')] + a[2] if a[1] else []))
    ending = st.one_of(st.just([T.TagCloseSelfclose(padding="")]), st.just([T.TagCloseClose()]),
                       children.map(lambda inner: [T.TagCloseOpen(padding="")] + inner + [T.TagOpenClose()]))
    return st.tuples(name, st.lists(attribute, max_size=2), ending).map(
        lambda t: [T.TagOpenOpen()] + t[0] + _concat(t[1]) + t[2]
        + (t[0] + [T.TagCloseClose()] if type(t[2][-1]) is T.TagOpenClose else []))


def _nodes(children):
    return st.lists(st.one_of(
        _template(children), _external_link(children), _tag(children),
        _wrapped(T.WikilinkOpen, T.WikilinkClose, T.WikilinkSeparator)(children),
        _wrapped(T.ArgumentOpen, T.ArgumentClose, T.ArgumentSeparator)(children),
        _wrapped(lambda: T.HeadingStart(level=2), lambda: T.HeadingEnd(level=2))(children),
        _wrapped(T.CommentStart, T.CommentEnd)(children), ENTITIES), max_size=3).map(_concat)


WELL_FORMED = st.recursive(st.lists(_value, max_size=3), _nodes, max_leaves=12)
ANY_TOKEN = st.one_of(_value, st.sampled_from([
    T.TemplateOpen(), T.TemplateParamSeparator(), T.TemplateParamEquals(), T.TemplateClose(), T.ArgumentOpen(),
    T.ArgumentSeparator(), T.ArgumentClose(), T.WikilinkOpen(), T.WikilinkSeparator(), T.WikilinkClose(),
    T.ExternalLinkOpen(brackets=True), T.ExternalLinkOpen(brackets=False), T.ExternalLinkOpen(),
    T.ExternalLinkSeparator(), T.ExternalLinkClose(), T.HTMLEntityStart(), T.HTMLEntityNumeric(),
    T.HTMLEntityHex(char="x"), T.HTMLEntityHex(), T.HTMLEntityEnd(), T.HeadingStart(level=1), T.HeadingEnd(level=1),
    T.CommentStart(), T.CommentEnd(), T.TagOpenOpen(), T.TagAttrStart(), T.TagAttrEquals(), T.TagAttrQuote(),
    T.TagCloseOpen(), T.TagCloseSelfclose(), T.TagOpenClose(), T.TagCloseClose()]))


@st.composite
def token_lists(draw) -> list[Any]:
    """A well-formed stream, sometimes with tokens dropped, inserted or swapped."""
    tokens = list(draw(WELL_FORMED))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(tokens)))
        change = draw(st.sampled_from(["drop", "insert", "replace"]))
        if change == "insert" or at == len(tokens):
            tokens.insert(at, draw(ANY_TOKEN))
        elif change == "drop":
            del tokens[at]
        else:
            tokens[at] = draw(ANY_TOKEN)
    return tokens


@settings(max_examples=1000, deadline=None)
@given(token_lists())
def test_the_c_walk_judges_every_generated_token_list_as_the_python_walk(token_list):
    assert _outcome(_c_walk(), token_list) == _outcome(wiki_markup._python_walk, token_list)


def test_generated_token_lists_reach_every_outcome():
    """The strategy above is only worth its examples if they reach the walk's branches: text, each refusal, and the
    errors of mwparserfromhell's own entity normalisation."""
    c_walk, seen = _c_walk(), set()

    @settings(max_examples=500, deadline=None, database=None)
    @given(token_lists())
    def walk(token_list):
        kind, text = _outcome(c_walk, token_list)
        seen.add(text.split(" ")[0] if text.startswith("unexpected") else text if kind == "Unsupported" else kind)

    walk()
    assert seen >= {"text", "unexpected", "KeyError", "ValueError", "a construct is missing its close token",
                    "a free external link with a title", "a tag closed before its name",
                    "a tag whose name is not plain text"}, seen


def test_the_c_walk_refuses_as_the_python_walk():
    c_walk = _c_walk()
    cases = {
        "unexpected TemplateClose": [T.Text(text="a"), T.TemplateClose()],
        "a construct is missing its close token": [T.WikilinkOpen(), T.Text(text="a")],
        "a free external link with a title": [T.ExternalLinkOpen(brackets=False), T.Text(text="http://x.org"),
                                              T.ExternalLinkSeparator(), T.Text(text="t"), T.ExternalLinkClose()],
        "a tag closed before its name": [T.TagOpenOpen(), T.Text(text="b"), T.TagCloseClose()],
        "a tag whose name is not plain text": [T.TagOpenOpen(), T.CommentStart(), T.CommentEnd(), T.Text(text="b"),
                                               T.TagCloseOpen(), T.Text(text="x"), T.TagOpenClose(), T.TagCloseClose()],
    }
    for message, token_list in cases.items():
        for walk in (c_walk, wiki_markup._python_walk):
            with pytest.raises(wiki_markup.Unsupported, match=f"^{message}$"):
                walk(token_list)


def test_the_python_walk_is_the_fallback_where_the_extension_is_not_built():
    """An interpreter where ``import noisecraft._wikistrip`` finds nothing: no warning, the Python walk, same text."""
    script = (
        "import sys, warnings\n"
        "warnings.simplefilter('error')\n"
        "sys.modules['noisecraft._wikistrip'] = None\n"  # what an install without a C compiler looks like
        "from noisecraft.mining import wiki_markup\n"
        "assert wiki_markup._CompiledWalker is None\n"
        "assert wiki_markup._stripper()[1] is wiki_markup._python_walk\n"
        "print(repr(wiki_markup.strip_tokens(sys.argv[1])))\n")
    text = "The [[bridge (Lisbon)|bridge]] was ''opened''<b>x</b> in {{as of|1937}}1937&nbsp;.\n\n\n\nEnd"
    done = subprocess.run([sys.executable, "-c", script, text], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == repr(_full_parse(text)) == repr("The bridge was openedx in 1937\xa0.\n\nEnd")


# --- memory: nothing kept per call, on any path --------------------------------------------------------------------

LEAK_CASES = [
    "The [[bridge (Lisbon)|bridge]] was ''opened''<ref name=x>y</ref> in {{as of|1937}}1937&nbsp;&#x41;&#66;.",
    "== Heading ==\n\n\n\n<b>bold</b> [http://x.org title] http://y.org {{{arg|default}}}<!-- comment --> é日本",
]
LEAK_STREAMS = [_tokens(text) for text in LEAK_CASES] + [
    [T.Text(text="a"), T.TemplateClose()],  # Unsupported: unexpected
    [T.WikilinkOpen(), T.Text(text="a")],  # Unsupported: missing close
    [T.TagOpenOpen(), T.Text(text="b"), T.TagCloseOpen(), T.Text(text="x"), T.TagOpenClose(), T.TagCloseClose()],
    [T.HTMLEntityStart(), T.Text(text="bogus"), T.HTMLEntityEnd()],  # KeyError from HTMLEntity.normalize
    [T.ExternalLinkOpen(brackets=False), T.Text(text="u"), T.ExternalLinkSeparator(), T.ExternalLinkClose()],
]


def _walk_all(walk, times: int) -> None:
    for _ in range(times):
        for stream in LEAK_STREAMS:
            _outcome(walk, stream)


def test_the_c_walk_keeps_no_reference_to_what_it_reads():
    c_walk = _c_walk()
    # fresh copies (texts of 2+ characters are new objects): their counts move only with what the walk does
    streams = [[type(token)({key: "".join(value) if isinstance(value, str) else value for key, value in token.items()})
                for token in stream] for stream in LEAK_STREAMS]
    watched = [token for stream in streams for token in stream]
    watched += [token["text"] for token in watched if len(token.get("text") or "") > 1]
    watched += [wiki_markup.Unsupported, KeyError]
    for stream in streams:
        _outcome(c_walk, stream)
    gc.collect()
    before = [sys.getrefcount(item) for item in watched]
    for _ in range(50):
        for stream in streams:
            _outcome(c_walk, stream)
    gc.collect()
    assert [sys.getrefcount(item) for item in watched] == before


def test_the_c_walk_allocates_nothing_that_outlives_a_call():
    c_walk = _c_walk()
    _walk_all(c_walk, 200)
    tracemalloc.start()
    try:
        gc.collect()
        start = tracemalloc.get_traced_memory()[0]
        _walk_all(c_walk, 2000)  # 14,000 walks: a leak of 8 bytes a walk would show as 112 KB
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert grown < 16_000, grown


def test_a_walker_made_from_the_wrong_classes_says_which():
    _c_walk()
    tokens, _, entity, visible = wiki_markup._library()
    not_tokens = types.SimpleNamespace(**{name: getattr(tokens, name) for name in dir(tokens) if name[0].isupper()})
    not_tokens.HeadingEnd = object
    with pytest.raises(TypeError, match=r"^Walker: tokens\.HeadingEnd is not a token class"):
        wiki_markup._CompiledWalker(not_tokens, wiki_markup.Unsupported, entity, visible)
    with pytest.raises(TypeError, match="unsupported must be an exception class"):
        wiki_markup._CompiledWalker(tokens, "Unsupported", entity, visible)
