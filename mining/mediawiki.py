"""Streaming reader for MediaWiki XML exports and full-history dumps.

Reads plain, ``.gz``, ``.bz2`` and ``.7z`` files (detected from their first bytes, not their
names; ``.7z`` through the ``7z`` program, Debian ``p7zip-full``) with expat directly: only the
fields the miners use (page title and namespace, revision id and text) are collected, so memory is
one revision's text whatever the dump size or the nesting of its elements, and every problem has the
line where expat found it. Any export schema version (0.3-0.11) and any encoding the XML declares
(UTF-8, UTF-16 with a BOM, the single-byte codecs) are accepted; the one used is reported.

Two kinds of failure, because they call for different handling:

* :class:`~noisecraft.errors.InputError` before the ``<mediawiki>`` root element is recognised: the
  file cannot be opened, is not compressed data it claims to be, is not XML (prose, random bytes),
  is another kind of XML, or is a tar archive. Nothing in it is usable.
* :class:`DumpError` after that: the XML breaks (a truncated or corrupt download), decompression
  fails part-way, elements are nested deeper than any export schema, or a ``<ns>`` is not a number.
  Everything yielded before it is sound, and miners keep it.
"""

from __future__ import annotations

import bz2
import gzip
import shutil
import subprocess
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from xml.parsers import expat

from noisecraft.core.text_files import cannot_read, open_binary
from noisecraft.errors import InputError

MAGIC = {b"BZh": "bz2", b"\x1f\x8b": "gzip", b"7z\xbc\xaf\x27\x1c": "7z"}
# Decompressed bytes fed to expat at a time: a block cut short by a truncated or corrupt file is lost,
# so it is small (ElementTree's iterparse reads 16 KiB); larger blocks are no faster.
BLOCK = 1 << 16
#: MediaWiki export schemas nest at most 5 deep (mediawiki/page/revision/contributor/username);
#: anything far deeper is not an export, and is refused instead of being walked.
MAX_DEPTH = 32


class DumpError(InputError):
    """A dump that stops being readable part-way (truncated, corrupt); what came before is usable."""


@dataclass(frozen=True)
class Revision:
    """One revision of a page, in dump order; ``text`` is None when it was deleted or hidden."""

    page: str
    namespace: int
    revision_id: str
    text: str | None


@dataclass(frozen=True)
class PageEnd:
    """The end of a page, with how many revisions it had."""

    page: str
    namespace: int
    revisions: int


def compression_of(path: Path) -> str:
    """``plain``, ``gzip``, ``bz2`` or ``7z``, from the file's magic bytes."""
    with open_binary(path, "dump") as handle:
        try:
            head = handle.read(6)
        except OSError as exc:
            raise cannot_read(path, exc, "dump") from exc
    return next((kind for magic, kind in MAGIC.items() if head.startswith(magic)), "plain")


@contextmanager
def open_dump(path: Path) -> Iterator[BinaryIO]:
    """The decompressed byte stream of a dump file."""
    kind = compression_of(path)
    if kind == "gzip":
        with gzip.open(path, "rb") as stream:
            yield stream  # type: ignore[misc]
    elif kind == "bz2":
        with bz2.open(path, "rb") as stream:
            yield stream  # type: ignore[misc]
    elif kind == "7z":
        program = shutil.which("7z") or shutil.which("7za") or shutil.which("7zz")
        if program is None:
            raise InputError(path, "a .7z dump needs the 7z program (Debian: apt-get install p7zip-full)")
        process = subprocess.Popen([program, "e", "-so", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert process.stdout is not None
        failure: BaseException | None = None
        try:
            yield process.stdout  # type: ignore[misc]
        except BaseException as exc:
            failure = exc
            raise
        finally:
            process.stdout.close()
            error = process.stderr.read().decode("utf-8", "replace").strip() if process.stderr else ""
            # -13: we stopped reading early (SIGPIPE); an interrupt is never replaced by 7z's complaint
            if process.wait() not in (0, -13) and error and (failure is None or isinstance(failure, InputError)):
                # 7z's message is the cause; whether anything before it is usable is what the reader found
                usable = failure is None or isinstance(failure, DumpError)
                raise (DumpError if usable else InputError)(path, f"7z could not decompress it: {error.splitlines()[-1]}")
    else:
        with open_binary(path, "dump") as stream:
            yield stream


def _local(name: str) -> str:
    """``page`` of ``http://www.mediawiki.org/xml/export-0.10/ page`` (expat's namespaced name)."""
    return name.rpartition(" ")[2]


def _encoding_of(head: bytes, declared: str | None) -> str:
    """How expat decodes the document: its BOM, else its declaration, else XML's default UTF-8."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16 (byte-order mark)"
    if declared:
        return f"{declared.lower()} (declared)"
    return "utf-8 (XML default)"


class DumpReader:
    """Iterates the revisions and page ends of one dump, once; afterwards :attr:`compression` and
    :attr:`encoding` say how it was read.

    Raises :class:`InputError` if the file is not a readable MediaWiki export, and :class:`DumpError`
    (after yielding everything before it) if it is truncated or corrupt.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.compression = ""
        self.encoding = ""
        self._declared: str | None = None
        self._head = b""
        self._items: list[Revision | PageEnd] = []
        self._parser = expat.ParserCreate(namespace_separator=" ")
        self._parser.buffer_text = True
        self._parser.buffer_size = 1 << 16
        self._parser.StartElementHandler = self._start
        self._parser.EndElementHandler = self._end
        self._parser.CharacterDataHandler = self._characters
        self._parser.XmlDeclHandler = self._declaration
        self._depth = 0
        self.root_seen = False
        self._capture: str | None = None  # the field whose text is being collected
        self._capture_depth = 0
        self._buffer: list[str] = []
        self._title, self._namespace, self._revisions = "", 0, 0
        self._in_page = self._in_revision = False
        self._revision_id: str = ""
        self._text: str | None = None
        self._ns_line = 0

    # --- expat callbacks (exceptions raised here come out of Parse) --------------------------

    def _line(self) -> str:
        return f"line {self._parser.CurrentLineNumber}"

    def _declaration(self, version: str, encoding: str | None, standalone: int) -> None:
        self._declared = encoding

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        self._depth += 1
        depth, tag = self._depth, _local(name)
        if depth == 1:
            if tag != "mediawiki":
                raise InputError(self.path, f"not a MediaWiki XML export: the root element is <{tag}>", self._line())
            self.root_seen = True
            self.encoding = _encoding_of(self._head, self._declared)
        elif depth > MAX_DEPTH:
            raise DumpError(self.path, f"elements nested more than {MAX_DEPTH} deep: not a MediaWiki export schema",
                            self._line())
        elif depth == 2 and tag == "page":
            self._in_page, self._title, self._namespace, self._revisions = True, "", 0, 0
        elif depth == 3 and self._in_page and tag in ("title", "ns"):
            self._collect(tag, depth)
            if tag == "ns":
                self._ns_line = self._parser.CurrentLineNumber
        elif depth == 3 and self._in_page and tag == "revision":
            self._in_revision, self._revision_id, self._text = True, "", None
        elif depth == 4 and self._in_revision and tag == "id":
            self._collect("id", depth)
        elif depth == 4 and self._in_revision and tag == "text":
            deleted = any(_local(key) == "deleted" for key in attributes)
            self._text = None if deleted else ""
            if not deleted:
                self._collect("text", depth)

    def _collect(self, field: str, depth: int) -> None:
        self._capture, self._capture_depth, self._buffer = field, depth, []

    def _characters(self, data: str) -> None:
        if self._capture is not None and self._depth == self._capture_depth:
            self._buffer.append(data)

    def _end(self, name: str) -> None:
        depth = self._depth
        self._depth -= 1
        if self._capture is not None and depth == self._capture_depth:
            field, value = self._capture, "".join(self._buffer)
            self._capture, self._buffer = None, []
            if field == "title":
                self._title = value
            elif field == "ns":
                try:
                    self._namespace = int(value)
                except ValueError:
                    raise DumpError(self.path, f"<ns> is {value.strip()[:40]!r}, not a namespace number "
                                               f"(page {self._title!r})", f"line {self._ns_line}") from None
            elif field == "id":
                self._revision_id = value.strip()
            else:
                self._text = value
            return
        if depth == 3 and self._in_revision and _local(name) == "revision":
            self._in_revision = False
            self._revisions += 1
            self._items.append(Revision(self._title, self._namespace, self._revision_id, self._text))
        elif depth == 2 and self._in_page and _local(name) == "page":
            self._in_page = False
            self._items.append(PageEnd(self._title, self._namespace, self._revisions))

    # --- reading -----------------------------------------------------------------------------

    def _feed(self, data: bytes, final: bool) -> None:
        try:
            self._parser.Parse(data, final)
        except expat.ExpatError as exc:
            message = expat.ErrorString(exc.code)
            if not self.root_seen:
                problem = "empty file" if not self._head else f"not XML ({message})"
                raise InputError(self.path, f"not a MediaWiki XML export: {problem}", f"line {exc.lineno}") from None
            raise DumpError(self.path, f"XML error (truncated or corrupt dump?): {message} (column {exc.offset})",
                            f"line {exc.lineno}") from None

    def _blocks(self, stream: BinaryIO) -> Iterator[bytes]:
        while True:
            try:
                block = stream.read(BLOCK)
            except (EOFError, OSError, zlib.error, ValueError) as exc:
                if not self.root_seen:
                    raise InputError(self.path, f"cannot decompress it as {self.compression}: {exc}") from None
                raise DumpError(self.path, f"decompression failed (truncated or corrupt file?): {exc}") from None
            if not block:
                return
            yield block

    def __iter__(self) -> Iterator[Revision | PageEnd]:
        if self.compression:
            raise RuntimeError(f"{self.path}: a DumpReader reads its file once; make another to read it again")
        self.compression = compression_of(self.path)
        with open_dump(self.path) as stream:
            for block in self._blocks(stream):
                if not self._head:
                    if block[257:262] == b"ustar":
                        raise InputError(self.path, "a tar archive, not an XML dump: extract the .xml file(s) from it first")
                    self._head = block[:4]
                yield from self._parse(block, False)
            yield from self._parse(b"", True)

    def _parse(self, data: bytes, final: bool) -> Iterator[Revision | PageEnd]:
        """Feed one block, then give what it completed; on an error, first what was completed before it."""
        try:
            self._feed(data, final)
        except InputError:
            items, self._items = self._items, []
            yield from items  # the pages and revisions the block completed before the damage are sound
            raise
        items, self._items = self._items, []
        yield from items


def read_dump(path: Path) -> Iterator[Revision | PageEnd]:
    """Revisions and page ends of a dump, streamed in document order (see :class:`DumpReader`)."""
    return iter(DumpReader(path))
