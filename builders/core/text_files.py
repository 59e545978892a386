"""Reading text files: one-line errors, encodings decided by one policy switch, each file once.

Sources (original release files), noise models (word lists, tags files, language models) and miners
(tweet CSVs, lexicons, misspelling lists, dumps) all read files here. The ``encoding=`` switch is the
policy: ``utf-8`` (the default) is strict, for files whose bytes end up published (a byte that is not
UTF-8 is an error naming the line and the byte offset: latin-1 would turn any byte into some text, and
the mojibake would be published); ``auto`` is the miners' (below); any other codec decodes everything.
Three things go wrong with files people downloaded from somewhere, and each is handled once:

* A file that cannot be read (missing, a folder, no permission) is an :class:`InputError` naming it,
  never an ``OSError`` traceback. So is anything that is not a regular file: ``/dev/zero`` would be read
  until the kernel kills the process, a FIFO would block forever. A reader may cap the size it takes
  (``limit``): recipes and noise dictionaries do, so that a wrong path is one line, not the machine's memory.
* Encodings are decided per file and reported. ``auto`` reads UTF-8 (a BOM is dropped) and decodes
  only the *lines* that are not valid UTF-8 as latin-1, the encoding of the original Sentiment140
  release and of Hu & Liu's negative-words.txt: one bad byte in a UTF-8 file costs one line, which
  is named in the report, instead of turning the whole file into mojibake. A named codec decodes the
  whole file with it; ``utf-8`` is strict and stops at the first bad line.
* The same file listed twice (the same path, or two paths that resolve to the same file) is read once.

Only LF ends a line (a CR right before it is part of a CRLF ending): U+2028, U+0085 and form feeds are
text, as the TSV contract keeps them (``str.splitlines`` would split there and shift every line number).
"""

from __future__ import annotations

import codecs
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from noisecraft.errors import ConfigError, InputError

AUTO = "auto"
UTF8 = "utf-8"
FALLBACK = "latin-1"  # every byte is a character, so the fallback never fails
SHOWN_LINES = 5  # line numbers listed in a report; the count is always complete
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of a byte that is not UTF-8
_WIDE_BOMS = {b"\xff\xfe\x00\x00": "UTF-32", b"\x00\x00\xfe\xff": "UTF-32", b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16"}


def cannot_read(path: Path, exc: OSError, what: str = "file") -> InputError:
    """The one-line error for a file the OS would not give us (missing, a folder, no permission)."""
    reason = exc.strerror or type(exc).__name__
    return InputError(path, f"cannot read {what}: {reason}")


def regular_file(path: Path, what: str = "file", limit: int | None = None) -> int:
    """The size of ``path``, checked before it is opened: an :class:`InputError` naming it when it is missing,
    a folder, not a regular file (a device such as ``/dev/zero``, a FIFO, a socket) or over ``limit`` bytes."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise cannot_read(Path(path), exc, what) from exc
    if stat.S_ISDIR(info.st_mode):  # open() of a folder succeeds on some systems and fails only at read()
        raise cannot_read(Path(path), IsADirectoryError(21, "Is a directory"), what)
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, f"cannot read {what}: not a regular file (a device, FIFO or socket)")
    if limit is not None and info.st_size > limit:
        raise InputError(path, f"cannot read {what}: {info.st_size:,} bytes, more than the {limit:,} a {what} may take")
    return info.st_size


def read_bytes(path: Path, what: str = "file", limit: int | None = None) -> bytes:
    """The bytes of a regular file (at most ``limit`` of them), or an :class:`InputError` naming it."""
    regular_file(path, what, limit)
    try:
        with Path(path).open("rb") as stream:
            data = stream.read() if limit is None else stream.read(limit + 1)
    except OSError as exc:
        raise cannot_read(Path(path), exc, what) from exc
    if limit is not None and len(data) > limit:  # it grew after the check
        raise InputError(path, f"cannot read {what}: more than the {limit:,} bytes a {what} may take")
    return data


def open_binary(path: Path, what: str = "file") -> BinaryIO:
    """A regular file opened for reading bytes, or an :class:`InputError` naming it."""
    regular_file(path, what)
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise cannot_read(Path(path), exc, what) from exc


def check_encoding(encoding: str) -> str:
    """The canonical codec name of ``encoding`` (or ``auto``); a codec that cannot be read line by line is refused."""
    if encoding == AUTO:
        return AUTO
    try:
        name = codecs.lookup(encoding).name
    except LookupError as exc:
        raise ConfigError(f"unknown encoding {encoding!r}: use auto, utf-8, latin-1, cp1252 or another Python codec") from exc
    if name != "utf-8-sig" and "\n,\"$->#;".encode(name, errors="replace") != b"\n,\"$->#;":
        raise ConfigError(f"encoding {encoding!r} is not ASCII-compatible (UTF-16/32?): re-encode the file as UTF-8")
    return name


class LineDecoder:
    """Decodes one file, block by block (each block ends at a line end), and says how.

    ``auto``: UTF-8, the BOM dropped; a line that is not UTF-8 is decoded as latin-1 and its number
    recorded. ``utf-8``/``utf-8-sig``: strict, the first bad line is an :class:`InputError`. Any other
    codec decodes everything. :meth:`describe` is the line for the stats that reach the card.
    """

    def __init__(self, path: Path, encoding: str = AUTO) -> None:
        self.path = Path(path)
        self.encoding = check_encoding(encoding)
        self.lines_before = 0  # physical lines in the blocks decoded so far
        self.bytes_before = 0  # bytes of the file before the next block (the BOM included)
        self.head = b""  # the file's first bytes, which may hold a UTF-16/32 byte-order mark
        self.fallback_lines: list[int] = []  # the first SHOWN_LINES of them
        self.fallback_count = 0
        self.utf8_beyond_ascii = False
        self.bom = False
        self._first = True

    @property
    def reads_utf8(self) -> bool:
        """Whether a block that is valid UTF-8 is read as UTF-8 (so a caller may validate it faster itself)."""
        return self.encoding in (AUTO, "utf-8", "utf-8-sig")

    def strip_bom(self, block: bytes) -> bytes:
        """The block without the UTF-8 byte-order mark the file may start with (only the first block can have it)."""
        if self._first:
            self._first, self.head = False, block[:4]
            wide = next((name for bom, name in _WIDE_BOMS.items() if self.head.startswith(bom)), None)
            if wide and self.encoding == AUTO:  # auto would read it as latin-1 lines of NULs: nothing parses
                raise InputError(self.path, f"the file is {wide} (it starts with a {wide} byte-order mark): re-encode "
                                            f"it as UTF-8 (iconv -f {wide} -t UTF-8)", "line 1")
            if block.startswith(codecs.BOM_UTF8) and self.reads_utf8:
                self.bom, block = True, block[len(codecs.BOM_UTF8):]
                self.bytes_before += len(codecs.BOM_UTF8)
        return block

    def accept_utf8(self, block: bytes, newlines: int | None = None) -> None:
        """Account for a block (BOM stripped) that the caller found to be valid UTF-8, instead of :meth:`decode`;
        ``newlines``, when the caller has counted them already, saves a pass over the block."""
        self.utf8_beyond_ascii = self.utf8_beyond_ascii or not block.isascii()
        self.lines_before += block.count(b"\n") if newlines is None else newlines
        self.bytes_before += len(block)

    def decode(self, block: bytes) -> tuple[str, bytes]:
        """Text of the block and its UTF-8 bytes (the block itself when it was UTF-8: no copy)."""
        block = self.strip_bom(block)
        try:
            if self.reads_utf8:
                text = block.decode("utf-8")
                self.utf8_beyond_ascii = self.utf8_beyond_ascii or not text.isascii()  # O(1) on str
                return text, block
            text = block.decode(self.encoding)
            return text, text.encode("utf-8")
        except UnicodeDecodeError as exc:
            if self.encoding != AUTO:
                self._refuse(block, exc)
            text = self._decode_mixed(block)
            return text, text.encode("utf-8")
        finally:
            self.lines_before += block.count(b"\n")
            self.bytes_before += len(block)

    def _refuse(self, block: bytes, exc: UnicodeDecodeError) -> None:
        start = block.rfind(b"\n", 0, exc.start) + 1
        line = self.lines_before + block.count(b"\n", 0, exc.start) + 1
        if self.reads_utf8:
            wide = next((name for bom, name in _WIDE_BOMS.items() if self.head.startswith(bom)), None)
            advice = f"the file starts with a {wide} byte order mark" if wide else "latin-1 or cp1252?"
            raise InputError(self.path, f"not UTF-8 text (byte {self.bytes_before + exc.start}, 0x{block[exc.start]:02x}; "
                                        f"{advice}): convert the file to UTF-8", f"line {line}") from None
        raise InputError(self.path, f"not {self.encoding} (byte 0x{block[exc.start]:02x} at column {exc.start - start + 1}); "
                                    "read it with encoding auto (UTF-8, latin-1 for the lines that are not) or name "
                                    "its encoding", f"line {line}")

    def _decode_mixed(self, block: bytes) -> str:
        """UTF-8, with each line that is not UTF-8 decoded as latin-1 instead. One C-speed pass: bad bytes
        come out of ``surrogateescape`` as lone surrogates (which valid UTF-8 cannot hold), and only the
        lines holding one are turned back into their bytes and re-decoded."""
        text = block.decode("utf-8", "surrogateescape")
        parts: list[str] = []
        position, line = 0, self.lines_before + 1  # position is always the start of line `line`
        for bad in _ESCAPED_BYTE.finditer(text):
            if bad.start() < position:
                continue  # another bad byte of a line already re-decoded
            line_start = max(text.rfind("\n", position, bad.start()) + 1, position)
            line_end = text.find("\n", bad.start())
            line_end = len(text) if line_end < 0 else line_end + 1
            good = text[position:line_start]
            self.utf8_beyond_ascii = self.utf8_beyond_ascii or not good.isascii()
            line += good.count("\n")
            parts.append(good)
            parts.append(text[line_start:line_end].encode("utf-8", "surrogateescape").decode(FALLBACK))
            self.fallback_count += 1
            if len(self.fallback_lines) < SHOWN_LINES:
                self.fallback_lines.append(line)
            position, line = line_end, line + 1
        rest = text[position:]
        self.utf8_beyond_ascii = self.utf8_beyond_ascii or not rest.isascii()
        parts.append(rest)
        return "".join(parts)

    def describe(self) -> str:
        """How the file was decoded, for the stats: ``utf-8``, ``latin-1 (...)``, ``utf-8, N lines ...``."""
        bom = " (with BOM)" if self.bom else ""
        if self.encoding != AUTO:
            return f"{self.encoding}{bom} (as requested)"
        if not self.fallback_count:
            return f"utf-8{bom}"
        shown = ", ".join(map(str, self.fallback_lines)) + (", ..." if self.fallback_count > len(self.fallback_lines) else "")
        if not self.utf8_beyond_ascii:
            return f"{FALLBACK} (not UTF-8: {self.fallback_count} line(s) with non-ASCII bytes, none UTF-8: line(s) {shown})"
        return f"utf-8{bom}, {self.fallback_count} line(s) not UTF-8 read as {FALLBACK} (line(s) {shown})"


def decode_file(path: Path, encoding: str = AUTO, what: str = "file", limit: int | None = None) -> tuple[str, str]:
    """A whole (small) file's text and the description of how it was decoded (``limit``: see :func:`read_bytes`)."""
    decoder = LineDecoder(path, encoding)
    text, _ = decoder.decode(read_bytes(path, what, limit))
    return text, decoder.describe()


def read_text(path: Path, encoding: str = UTF8, what: str = "file", limit: int | None = None) -> str:
    """A whole file's text (a UTF-8 BOM is dropped); a one-line error if it is missing, not a regular file, over
    ``limit`` bytes or not in ``encoding``."""
    return decode_file(path, encoding, what, limit)[0]


def text_lines(path: Path, encoding: str = UTF8, what: str = "file") -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of each line of a file, read as a stream (memory stays one line), without
    its line ending. Only LF ends a line, so U+2028, U+0085 and form feeds stay inside their line."""
    decoder = LineDecoder(path, encoding)
    with open_binary(path, what) as stream:
        for number, raw in enumerate(stream, start=1):
            text, _ = decoder.decode(raw)
            yield number, text.removesuffix("\n").removesuffix("\r")


def line_blocks(handle: BinaryIO, size: int) -> Iterator[bytes]:
    """The stream in blocks of about ``size`` bytes that end at a line end (the last one may not):
    ``size`` bytes and the rest of the line they end in, so each block is copied once at most."""
    while True:
        block = handle.read(size)
        if not block:
            return
        if not block.endswith(b"\n"):
            block += handle.readline()
        yield block


def file_identity(path: Path) -> tuple[int, int] | str:
    """What makes two paths the same file: device and inode (hard links, symlinks, ``a/../b``), or
    the resolved path when the file cannot be looked at (it will fail with its own error later)."""
    try:
        stat = os.stat(path)
        return stat.st_dev, stat.st_ino
    except OSError:
        return str(Path(path).resolve())


def unique_files(paths: Iterable[Path]) -> tuple[list[Path], list[str]]:
    """Each file once, in first-listed order, and one ``"b.xml (same file as a.xml)"`` per repeat (by file
    name: these lines reach dataset cards, which never show the folders of the machine that made them)."""
    kept: dict[tuple[int, int] | str, Path] = {}
    repeats: list[str] = []
    for path in map(Path, paths):
        identity = file_identity(path)
        if identity in kept:
            first = kept[identity]
            same = "listed twice" if str(path) == str(first) else f"same file as {first.name}"
            repeats.append(f"{path.name} ({same})")
        else:
            kept[identity] = path
    return list(kept.values()), repeats


def describe_files(entries: Sequence[tuple[Path, str]]) -> str:
    """``"a.csv: utf-8; b.csv: latin-1 (...)"``: one entry per file, by name."""
    return "; ".join(f"{Path(path).name}: {what}" for path, what in entries) or "none"
