"""Plain text of wikitext straight from mwparserfromhell's token stream, without building its node tree.

``mwparserfromhell.parse(text).strip_code(normalize=True, collapse=True)`` tokenises in C, then builds a tree of
node objects in Python and walks it; the tree building is about four fifths of the cost, and edit mining strips
one paragraph per revision. :func:`strip_tokens` reads the same tokens (mwparserfromhell's own tokenizer) and
gives the same string: each ``_node`` branch below consumes exactly the tokens that the matching handler of
mwparserfromhell's ``Builder`` consumes, and returns what that node's ``__strip__`` returns (templates and
comments: nothing; links: their text, else their title; tags: their contents when the tag is visible and the
contents are not empty; headings: their title; entities: the character, through mwparserfromhell's own
``HTMLEntity.normalize``). A token stream this walk does not expect (one the builder would refuse, or a tag name
that is not plain text) raises :class:`Unsupported`, and the caller strips that text with mwparserfromhell itself.

The walk runs in C (``noisecraft._wikistrip``, builders/_wikistrip.c, an optional extension: 3.3 instead of 17-20 us
for a mining paragraph of ~400 characters, whose tokenizing takes ~17 us) where it was built; :class:`_Walk` below is
the reference it follows branch for branch, and the fallback without it.

Tested against mwparserfromhell on every paragraph of the shared MediaWiki dumps and on generated markup
(tests/test_mining_wikiedits.py, and both walks against each other in tests/test_wikistrip_c.py), so the mined
dictionaries are byte-identical to a full parse.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from noisecraft.compiled import compiled
from noisecraft.extras import require

# built only where pip found a C compiler (builders/_wikistrip.c); without it, the same walk in Python (slower)
_CompiledWalker = (compiled("noisecraft._wikistrip", ("Walker",)) or (None,))[0]


class Unsupported(Exception):
    """A token stream this walk leaves to mwparserfromhell's own builder."""


def _collapsed(parts: list[str]) -> str:
    """``Wikicode.strip_code``'s ending with ``collapse=True``: outer newlines off, runs of 3+ newlines to 2."""
    stripped = "".join(parts).strip("\n")
    while "\n\n\n" in stripped:
        stripped = stripped.replace("\n\n\n", "\n\n")
    return stripped


class _Segment:
    """The nodes of one Wikicode being built: their stripped texts, whether its raw text is non-empty, and the
    raw text itself while every node is plain text (a tag's name is read from it)."""

    __slots__ = ("parts", "nonempty", "raw")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.nonempty = False
        self.raw: list[str] | None = []

    def strip(self) -> str:
        return _collapsed(self.parts)


@cache
def _library() -> tuple[Any, Any, Any, Callable[[str], bool]]:
    """mwparserfromhell's token classes, a tokenizer factory, its HTMLEntity node and ``is_visible``."""
    require("mwparserfromhell", "mining")
    from mwparserfromhell.definitions import is_visible
    from mwparserfromhell.nodes import HTMLEntity
    from mwparserfromhell.parser import CTokenizer, tokens

    if CTokenizer is None:  # the pure-Python tokenizer gives the same tokens, slower
        from mwparserfromhell.parser.tokenizer import Tokenizer as CTokenizer
    return tokens, CTokenizer, HTMLEntity, is_visible


class _Walk:
    """One pass over a token list (consumed from the end, as the builder does)."""

    def __init__(self, token_list: list[Any]) -> None:
        self.tokens = token_list[::-1]
        self.t, _, self.entity, self.visible = _library()
        self.text_type = self.t.Text
        self.handlers = _handlers()

    def _pop(self) -> Any:
        if not self.tokens:
            raise Unsupported("a construct is missing its close token")
        return self.tokens.pop()

    def _node(self, token: Any, into: _Segment | None) -> None:
        """Consume one node starting with ``token``; add its stripped text (and raw facts) to ``into``."""
        if type(token) is self.text_type:  # most tokens: handled here, without a handler call
            if into is not None:
                text = token.get("text")  # a token is a dict; ``token.text`` reads the same key, slower
                if text:
                    into.parts.append(text)
                    into.nonempty = True
                if into.raw is not None:
                    into.raw.append(text)
            return
        handler = self.handlers.get(type(token))
        if handler is None:
            raise Unsupported(f"unexpected {type(token).__name__}")
        stripped = handler(self, token)
        if into is not None:
            if stripped:
                into.parts.append(stripped)
            into.nonempty = True  # every other node renders with its delimiters: its raw text is never empty
            into.raw = None

    def top(self) -> str:
        segment = _Segment()
        while self.tokens:
            self._node(self.tokens.pop(), segment)
        return segment.strip()

    # --- one method per Builder handler ------------------------------------------------------

    def _template(self, token: Any) -> None:
        t, in_param = self.t, False
        while True:
            token = self._pop()
            if type(token) is t.TemplateClose:
                return None  # a template strips to nothing (keep_template_params is off)
            if type(token) is t.TemplateParamSeparator:
                in_param = True
            elif type(token) is t.TemplateParamEquals and in_param:
                pass
            else:
                self._node(token, None)

    def _until(self, close: type, separator: type | None = None) -> tuple[_Segment, int]:
        """The nodes up to ``close``; at each ``separator`` a new segment starts (the last one is returned) and
        the count of separators seen is returned with it."""
        segment, separators = _Segment(), 0
        while True:
            token = self._pop()
            if type(token) is close:
                return segment, separators
            if separator is not None and type(token) is separator:
                segment, separators = _Segment(), separators + 1
            else:
                self._node(token, segment)

    def _argument(self, token: Any) -> str | None:
        default, separators = self._until(self.t.ArgumentClose, self.t.ArgumentSeparator)
        return default.strip() if separators else None

    def _wikilink(self, token: Any) -> str:
        # title, or after a separator the text: either way the last segment is what strips
        return self._until(self.t.WikilinkClose, self.t.WikilinkSeparator)[0].strip()

    def _external_link(self, token: Any) -> str | None:
        last, separators = self._until(self.t.ExternalLinkClose, self.t.ExternalLinkSeparator)
        if not token.brackets:
            if separators:
                raise Unsupported("a free external link with a title")
            return last.strip()  # a free link is its URL
        if not separators or not last.nonempty:
            return None  # a bracketed link without a title shows nothing
        return last.strip()

    def _entity(self, token: Any) -> str:
        t = self.t
        token = self._pop()
        if type(token) is t.HTMLEntityNumeric:
            token = self._pop()
            if type(token) is t.HTMLEntityHex:
                text = self._pop()
                self._pop()
                node = self.entity(text.text, named=False, hexadecimal=True, hex_char=token.char)
            else:
                self._pop()
                node = self.entity(token.text, named=False, hexadecimal=False)
        else:
            self._pop()
            node = self.entity(token.text, named=True, hexadecimal=False)
        return node.normalize()

    def _heading(self, token: Any) -> str:
        return self._until(self.t.HeadingEnd)[0].strip()

    def _comment(self, token: Any) -> None:
        self._until(self.t.CommentEnd)
        return None

    def _attribute(self) -> None:
        """A tag attribute: consumed and dropped (attributes never show)."""
        t = self.t
        while True:
            token = self._pop()
            if type(token) in (t.TagAttrStart, t.TagCloseOpen, t.TagCloseSelfclose):
                self.tokens.append(token)
                return
            if type(token) not in (t.TagAttrEquals, t.TagAttrQuote):
                self._node(token, None)

    def _tag(self, token: Any) -> str | None:
        t = self.t
        segment = _Segment()
        name: _Segment | None = None
        contents: _Segment | None = None
        while True:
            token = self._pop()
            kind = type(token)
            if kind is t.TagAttrStart:
                self._attribute()
            elif kind is t.TagCloseOpen:
                name, segment = segment, _Segment()
            elif kind is t.TagOpenClose:
                contents, segment = segment, _Segment()
            elif kind is t.TagCloseSelfclose:
                name = segment
                break
            elif kind is t.TagCloseClose:
                break
            else:
                self._node(token, segment)
        if name is None:
            raise Unsupported("a tag closed before its name")
        if contents is None or not contents.nonempty:
            return None
        if name.raw is None:
            raise Unsupported("a tag whose name is not plain text")
        return contents.strip() if self.visible("".join(name.raw)) else None


@cache
def _handlers() -> dict[type, Callable[[_Walk, Any], str | None]]:
    """The walk's handler of each opening token class, made once (not per walk)."""
    t = _library()[0]
    return {t.TemplateOpen: _Walk._template, t.ArgumentOpen: _Walk._argument, t.WikilinkOpen: _Walk._wikilink,
            t.ExternalLinkOpen: _Walk._external_link, t.HTMLEntityStart: _Walk._entity, t.HeadingStart: _Walk._heading,
            t.CommentStart: _Walk._comment, t.TagOpenOpen: _Walk._tag}


def _python_walk(token_list: list[Any]) -> str:
    """The walk in Python: the reference, and the fallback where ``noisecraft._wikistrip`` is not built."""
    return _Walk(token_list).top()


@cache
def _stripper() -> tuple[Callable[[], Any], Callable[[list[Any]], str]]:
    """The tokenizer class and the walk that :func:`strip_tokens` uses: the C walk when it is built, else Python's."""
    tokens, tokenizer, entity, visible = _library()
    if _CompiledWalker is None:
        return tokenizer, _python_walk
    return tokenizer, _CompiledWalker(tokens, Unsupported, entity, visible).strip


def strip_tokens(text: str) -> str:
    """``mwparserfromhell.parse(text).strip_code(normalize=True, collapse=True)``, without the node tree.

    Raises :class:`Unsupported` for a token stream it leaves to mwparserfromhell.
    """
    tokenizer, walk = _stripper()
    return walk(tokenizer().tokenize(text, 0, False))
