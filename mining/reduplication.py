"""Emphatic letter reduplications in tweets (``baaaad``, ``crazzzzyyy``), mapped to lexicon words.

Follows CoLeS: a tweet word is a reduplication of a lexicon word when it matches the word with
every letter allowed to repeat, the regex ``\\bb+a+d+\\b`` for "bad". Input is Sentiment140-format
CSV (six columns, ``text`` last) and a word list such as the Hu & Liu opinion lexicon; output is
rows of a noise dictionary (:mod:`noisecraft.dataset.noise_dictionary`) with the columns of
:data:`REDUPLICATION_COLUMNS` added. Words of @mentions and #hashtags are not tweet words (a user
name or a tag is not emphasis), and lexicon entries that are themselves lengthenings (Hu & Liu list
``goood``, ``gooood`` and ``sloooow``) are folded into their base word, so that they are found as
variants instead of being their own canonical forms.

:func:`mine_reduplications` scales to the full 1.6 M-tweet corpus in one pass over the file:
:class:`TweetFile` reads it in blocks of whole lines (each checked, decoded and parsed on its own,
so memory is a block, not the file), polars finds the few unique words of each block that hold a
tripled letter, and only those are matched, in Python, against the lexicon indexed by skeleton
(runs collapsed: "good" -> "god"). :func:`mine_naive` is the literal CoLeS method, one regex per
lexicon word over all tweets, kept as the reference the fast miner is tested against and as the
benchmark baseline.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, groupby
from pathlib import Path
from typing import Any

import polars as pl

from noisecraft.building.executors import check_engine, make_executor
from noisecraft.core.citations import LENGTHENING_CITATION, OPINION_LEXICON_CITATION, SENTIMENT140_CITATION
from noisecraft.core.schema import value
from noisecraft.core.text_files import AUTO, LineDecoder, decode_file, describe_files, line_blocks, open_binary, unique_files
from noisecraft.dataset.noise_dictionary import with_probabilities
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.output import MinedDictionary

TWEET_COLUMNS = ("polarity", "id", "date", "query", "user", "text")

REDUPLICATION_COLUMNS: dict[str, Any] = {
    "extra_letters": value("int64"),
    "repeated_letters": value("string"),
    "tweets": value("int64"),
}

# One CSV field: quoted (doubled quotes inside) or bare. A physical line that is six of these is
# a record polars parses exactly as the csv module would; polars silently mangles anything else
# (a stray quote inside a quoted field is dropped), so such files go through the strict parser.
_FIELD = r'(?:"(?:[^"]|"")*"|[^",\r\n]*)'
_RECORD_LINE = rf"^{_FIELD}(?:,{_FIELD}){{5}}\r?$"
_HEADERS = (list(TWEET_COLUMNS), [str(i) for i in range(len(TWEET_COLUMNS))])  # ours, and pandas' 0..5
_EMPHATIC_RUN = 3  # a doubled letter is ordinary spelling ("cool"); three in a row is emphasis
#: Bytes read, checked and parsed at a time: memory is a few blocks, whatever the file size. Measured on
#: 1.6 M tweets (one polars thread): 1-2 MiB blocks are the fastest (they stay in cache) at ~230 MB peak
#: RSS, of which ~170 MB is the imports; 8 MiB blocks are ~30 % slower and peak ~100 MB higher.
BLOCK_BYTES = 1 << 21
_STRING_SCHEMA = dict.fromkeys(TWEET_COLUMNS, pl.String)
_STRICT_BATCH = 100_000  # rows per batch on the strict (csv module) path
#: A tweet token: a maximal run of word characters, with the @ or # that makes it a mention or a tag.
_TOKEN = r"[@#]?\w+"
_TAG_PREFIXES = ("@", "#")
_TRIPLED = re.compile(rf"(.)\1{{{_EMPHATIC_RUN - 1},}}")  # a run of _EMPHATIC_RUN letters or more


# --- reading -----------------------------------------------------------------------------------


def read_lexicon(paths: Sequence[Path], encoding: str = AUTO) -> list[str]:
    """Lower-cased unique words of one-word-per-line lists, in first-seen order.

    Lines starting with ';' (the Hu & Liu header) and blank lines are skipped; each file is
    decoded on its own (see :class:`~noisecraft.core.text_files.LineDecoder`: the Hu & Liu
    negative-words.txt has one latin-1 line).
    """
    return _read_lexicon(paths, encoding)[0]


def _read_lexicon(paths: Sequence[Path], encoding: str = AUTO) -> tuple[list[str], list[tuple[Path, str]]]:
    """The words, and how each file was decoded."""
    if not paths:
        raise ConfigError("no lexicon file given")
    words: dict[str, None] = {}
    read_as: list[tuple[Path, str]] = []
    for path in unique_files(paths)[0]:
        text, how = decode_file(path, encoding, "lexicon")
        read_as.append((path, how))
        for number, line in enumerate(text.split("\n"), start=1):
            word = line.strip().lower()
            if not word or word.startswith(";"):
                continue
            if len(word.split()) > 1:
                raise InputError(path, f"expected one word per line, got {line.strip()!r}", f"line {number}")
            words[word] = None
    if not words:
        raise InputError(", ".join(str(p) for p in paths), "empty lexicon: no words, only comments or blank lines")
    return list(words), read_as


def _has_header(first_line: str) -> bool:
    """Whether the first line names the columns (pandas re-saves write ``0,1,2,3,4,5``)."""
    return next(csv.reader([first_line.rstrip("\r")]), []) in _HEADERS


class TweetFile:
    """One Sentiment140-format CSV, read in a single pass, block by block (:meth:`batches`).

    Accepts the original release (every field quoted, no header, CRLF) and re-saves (minimal quoting,
    pandas' ``0,1,...,5`` header line). A block whose every line is one whole record is parsed by
    polars; from the first block that has another line (a quoted newline, a blank line, or an error)
    on, the csv module parses strictly, so broken quoting or a row without exactly six fields is an
    :class:`InputError` with its line. After reading, :attr:`rows` is the tweet count and
    :meth:`encoding` says how the file was decoded (see :class:`~noisecraft.core.text_files.LineDecoder`).
    """

    def __init__(self, path: Path, encoding: str = AUTO, block_bytes: int = BLOCK_BYTES) -> None:
        self.path = Path(path)
        self.decoder = LineDecoder(self.path, encoding)
        self.block_bytes = block_bytes
        self.rows = 0

    def encoding(self) -> str:
        """How the file was decoded (complete once :meth:`batches` is exhausted)."""
        return self.decoder.describe()

    def batches(self, columns: Sequence[str] = TWEET_COLUMNS) -> Iterator[pl.DataFrame]:
        """The tweets as string-column frames of ``columns``, a block at a time, in file order."""
        indexes = [TWEET_COLUMNS.index(name) for name in columns]
        self.rows = 0
        with open_binary(self.path, "tweet file") as handle:
            blocks = line_blocks(handle, self.block_bytes)
            first = True
            for block in blocks:
                line = self.decoder.lines_before + 1  # the block's first physical line
                payload = self.decoder.strip_bom(block)
                lines = _utf8_lines(payload) if self.decoder.reads_utf8 else None
                if lines is not None:  # valid UTF-8, checked by polars: no Python string made
                    self.decoder.accept_utf8(payload, lines.len() - (not payload.endswith(b"\n")))
                else:
                    text, payload = self.decoder.decode(payload)
                    lines = _lines(pl.Series([text], dtype=pl.String))
                if first:
                    first = False
                    if lines.len() and _has_header(lines[0]):
                        cut = payload.find(b"\n") + 1
                        payload, lines, line = (payload[cut:] if cut else b""), lines.slice(1), line + 1
                if not payload:
                    continue
                if lines.str.contains(_RECORD_LINE).all():
                    frame = pl.read_csv(payload, has_header=False, columns=indexes, schema=_STRING_SCHEMA,
                                        empty_string_is_null=False, raise_if_empty=False)
                    self.rows += frame.height
                    yield frame
                    continue
                rest = (self.decoder.decode(later)[0] for later in blocks)
                yield from self._strict(chain([payload.decode("utf-8")], rest), line, columns, indexes)
                break
        if first:
            raise InputError(self.path, "empty file: no tweets")
        if not self.rows:
            raise InputError(self.path, "no tweets: only a header line or blank lines")

    def _strict(self, texts: Iterable[str], first_line: int, columns: Sequence[str],
                indexes: Sequence[int]) -> Iterator[pl.DataFrame]:
        """Rows parsed by the csv module in strict mode: slow, but it names the line of any bad record.

        ``texts`` are the decoded blocks from ``first_line`` on; blank lines and quoted newlines
        are accepted.
        """
        lines = chain.from_iterable(io.StringIO(text, newline="\n") for text in texts)
        reader = csv.reader(lines, strict=True)
        batch: list[list[str]] = [[] for _ in indexes]
        start = first_line
        try:
            for row in reader:
                if row:
                    if len(row) != len(TWEET_COLUMNS):
                        raise InputError(self.path, f"{len(row)} fields, a Sentiment140 row has 6 ({', '.join(TWEET_COLUMNS)})",
                                         f"line {start}")
                    for values, index in zip(batch, indexes):
                        values.append(row[index])
                    if len(batch[0]) >= _STRICT_BATCH:
                        yield self._frame(batch, columns)
                        batch = [[] for _ in indexes]
                start = first_line + reader.line_num
        except csv.Error as exc:
            raise InputError(self.path, f"broken quoting ({exc})", f"line {start}") from exc
        if batch[0]:
            yield self._frame(batch, columns)

    def _frame(self, batch: list[list[str]], columns: Sequence[str]) -> pl.DataFrame:
        self.rows += len(batch[0])
        return pl.DataFrame(dict(zip(columns, batch)), schema=dict.fromkeys(columns, pl.String))


def _lines(text: pl.Series) -> pl.Series:
    """The physical lines of a one-string Series (a final newline ends the last line, it does not start one)."""
    lines = text.str.split("\n").explode()
    return lines.head(lines.len() - 1) if text.str.ends_with("\n").item() else lines


def _utf8_lines(block: bytes) -> pl.Series | None:
    """The lines of a block that is valid UTF-8 (validated by polars, faster than ``bytes.decode``), else None."""
    try:
        text = pl.Series([block], dtype=pl.Binary).cast(pl.String)
    except (pl.exceptions.ComputeError, pl.exceptions.InvalidOperationError):
        return None
    return None if text.null_count() else _lines(text)


def read_tweets(path: Path, encoding: str = AUTO) -> pl.DataFrame:
    """Tweets of a Sentiment140 CSV as string columns ``polarity, id, date, query, user, text``
    (the whole file in memory: the miner itself streams, see :class:`TweetFile`)."""
    return pl.concat(list(TweetFile(path, encoding).batches()))


# --- the lexicon ---------------------------------------------------------------------------------


def _runs(word: str) -> tuple[str, tuple[int, ...]]:
    """Skeleton (each run of one letter collapsed) and run lengths: 'baaad' -> ('bad', (1, 3, 1))."""
    runs = [(letter, sum(1 for _ in group)) for letter, group in groupby(word)]
    return "".join(letter for letter, _ in runs), tuple(length for _, length in runs)


def _by_preference(lexicon: Iterable[str]) -> list[str]:
    """Lower-cased all-letter lexicon words, the preferred canonical form first when several fit.

    The longest word that fits has the runs closest to the variant ("goooood" is "good", not
    "god"); ties go to the alphabetically first. Entries with hyphens, digits or symbols
    ("2-faced", "a+", "f**k") have no letter-run pattern and are left out.
    """
    return sorted({w.lower() for w in lexicon if w.isalpha()}, key=lambda w: (-len(w), w))


def _lengthened_letters(variant: str, canonical: str) -> str | None:
    """Comma-separated letters whose runs ``variant`` lengthens, or None when it is not emphatic.

    Both words have the same skeleton. Emphatic means some run reaches three letters where the
    canonical run is shorter, so "baad" (a common typo or spelling) is not emphatic, "baaad" is.
    """
    skeleton, runs = _runs(variant)
    canonical_runs = _runs(canonical)[1]
    if not any(n >= _EMPHATIC_RUN and n > m for n, m in zip(runs, canonical_runs)):
        return None
    return ",".join(letter for letter, n, m in zip(skeleton, runs, canonical_runs) if n > m)


Index = dict[str, list[tuple[str, tuple[int, ...]]]]


def _skeleton_index(words: Iterable[str]) -> Index:
    """Words with their run lengths, keyed by skeleton, preferred word first."""
    index: Index = defaultdict(list)
    for word in _by_preference(words):
        skeleton, runs = _runs(word)
        index[skeleton].append((word, runs))
    return dict(index)


def _canonical(word: str, index: Index) -> str | None:
    """The preferred lexicon word that ``word`` matches with letters repeated, if any."""
    # Most candidates ("hahahaaa", "zzzz") fit no skeleton: look that up before counting runs.
    fits = index.get("".join(letter for letter, _ in groupby(word)))
    if not fits:
        return None
    runs = _runs(word)[1]
    return next((candidate for candidate, candidate_runs in fits if all(n >= m for n, m in zip(runs, candidate_runs))),
                None)


@dataclass(frozen=True)
class Lexicon:
    """Canonical words of a lexicon once its lengthened entries are folded away.

    ``folded`` maps each entry with an emphatic run (``gooood``) to the lexicon word it lengthens
    (``good``, the preferred fit among entries without an emphatic run); ``kept`` lists emphatic
    entries with no such word, which stay canonical (with neither ``whoa`` nor ``whooa`` listed, there
    is no telling which one ``whoooa`` lengthens).
    """

    words: tuple[str, ...]
    folded: dict[str, str] = field(default_factory=dict)
    kept: tuple[str, ...] = ()
    index: Index = field(default_factory=dict, repr=False, compare=False)  # the words by skeleton

    def __post_init__(self) -> None:
        if self.words and not self.index:
            object.__setattr__(self, "index", _skeleton_index(self.words))

    def describe_folding(self) -> str:
        """``"goood, gooood -> good; slowww -> slow"`` for the stats, or ``none``."""
        by_base: dict[str, list[str]] = defaultdict(list)
        for entry, base in sorted(self.folded.items()):
            by_base[base].append(entry)
        return "; ".join(f"{', '.join(entries)} -> {base}" for base, entries in sorted(by_base.items())) or "none"


def fold_lexicon(lexicon: Iterable[str]) -> Lexicon:
    """The lexicon with entries that lengthen another entry folded into it (see :class:`Lexicon`)."""
    words = _by_preference(lexicon)
    emphatic = {word for word in words if _TRIPLED.search(word)}
    plain = _skeleton_index(word for word in words if word not in emphatic)
    folded: dict[str, str] = {}
    kept: list[str] = []
    for word in sorted(emphatic):
        base = _canonical(word, plain)
        if base is None:
            kept.append(word)
        else:
            folded[word] = base
    canonical = tuple(word for word in words if word not in folded)
    index = plain if not kept else _skeleton_index(canonical)
    return Lexicon(canonical, folded, tuple(kept), index)


def _as_lexicon(lexicon: Lexicon | Iterable[str]) -> Lexicon:
    return lexicon if isinstance(lexicon, Lexicon) else fold_lexicon(lexicon)


# --- matching ----------------------------------------------------------------------------------


def _tripled_letters(alphabet: Iterable[str]) -> str:
    """Regex alternation 'aaa|bbb|...': polars' regex has no backreference to say 'any letter x3'."""
    return "|".join(letter * _EMPHATIC_RUN for letter in sorted(alphabet))  # letters need no escaping


def _candidate_words(texts: pl.Series, tripled: str) -> pl.DataFrame:
    """Unique lower-cased tokens (``[@#]?\\w+``: a maximal run of word characters with the @ or # before
    it) holding a tripled letter, with their occurrence count and number of distinct tweets. Every
    emphatic variant is among them; mentions and hashtags keep their prefix, to be set aside."""
    return (
        pl.DataFrame({"text": texts.cast(pl.String).str.to_lowercase()})
        .lazy()
        .with_row_index("tweet")
        .filter(pl.col("text").str.contains(tripled))
        .select("tweet", word=pl.col("text").str.extract_all(_TOKEN))
        .explode("word")
        .filter(pl.col("word").str.contains(tripled))
        .group_by("word")
        .agg(count=pl.len(), tweets=pl.col("tweet").n_unique())
        .collect()
    )


@dataclass
class _Found:
    """Candidate words over all batches, and what the batches held."""

    candidates: pl.DataFrame
    tweets: int


def _merge(parts: Sequence[pl.DataFrame], tweets: int) -> _Found:
    """Candidate counts of several batches (or files) summed per word: tweets never span batches or files, so
    distinct-tweet counts add up, and the sum does not depend on how the tweets were split."""
    schema = {"word": pl.String, "count": pl.UInt32, "tweets": pl.UInt32}
    if not parts:
        return _Found(pl.DataFrame(schema=schema), tweets)
    merged = pl.concat(parts).group_by("word").agg(pl.col("count").sum(), pl.col("tweets").sum()).sort("word")
    return _Found(merged, tweets)


def _scan(batches: Iterable[pl.Series], tripled: str) -> _Found:
    """Candidate words summed over batches of tweet texts. Only the small per-batch results are kept."""
    parts: list[pl.DataFrame] = []
    tweets = 0
    for texts in batches:
        tweets += texts.len()
        if tripled:  # an empty lexicon has no letters to repeat: count the tweets only
            parts.append(_candidate_words(texts, tripled))
    return _merge(parts, tweets)


def _scan_file(job: tuple[Path, str, str]) -> tuple[_Found, str]:
    """One shard of a mining run: the candidates of one tweet file (``(path, encoding, tripled)``) and how the file
    was decoded. A pure function of the file, so files can be scanned by any executor."""
    path, encoding, tripled = job
    reader = TweetFile(path, encoding)
    found = _scan((batch.get_column("text") for batch in reader.batches(("text",))), tripled)
    return found, reader.encoding()


def _texts(texts: pl.Series | Iterable[pl.Series]) -> Iterable[pl.Series]:
    return [texts] if isinstance(texts, pl.Series) else texts


@dataclass
class MiningReport:
    """What :func:`mine_reduplications` set aside, for the stats: nothing is dropped silently."""

    tweets: int = 0
    tag_occurrences: int = 0  # emphatic variants of lexicon words inside @mentions or #hashtags
    tag_variants: Counter[str] = field(default_factory=Counter)


def _mine(texts: pl.Series | Iterable[pl.Series], lexicon: Lexicon | Iterable[str],
          lang: str) -> tuple[list[dict[str, Any]], MiningReport]:
    """Rows of :func:`mine_reduplications` and the report of what was set aside."""
    lexicon = _as_lexicon(lexicon)
    return _rows(_scan(_texts(texts), _tripled_letters(set("".join(lexicon.index)))), lexicon, lang)


def _rows(found: _Found, lexicon: Lexicon, lang: str) -> tuple[list[dict[str, Any]], MiningReport]:
    """Dictionary rows of the scanned candidates (each mapped to its lexicon word) and what was set aside."""
    index = lexicon.index
    report = MiningReport(tweets=found.tweets)
    if not index:
        return [], report
    rows = []
    for token, count, tweets in found.candidates.iter_rows():
        word = token.lstrip("@#")
        canonical = _canonical(word, index)
        letters = None if canonical is None else _lengthened_letters(word, canonical)
        if letters is None:
            continue
        if token.startswith(_TAG_PREFIXES):
            report.tag_occurrences += count
            report.tag_variants[token] += count
            continue
        rows.append({"lang": lang, "correct": canonical, "noisy": word, "count": count, "probability": 0.0,
                     "extra_letters": len(word) - len(canonical), "repeated_letters": letters, "tweets": tweets})
    rows.sort(key=lambda r: (r["correct"], -r["count"], r["noisy"]))
    return with_probabilities(rows), report


def mine_reduplications(texts: pl.Series | Iterable[pl.Series], lexicon: Lexicon | Sequence[str],
                        lang: str = "en") -> list[dict[str, Any]]:
    """Noise-dictionary rows, one per (lexicon word, emphatic variant) found in ``texts`` (one
    Series of tweets, or an iterable of batches such as :meth:`TweetFile.batches` gives).

    A tweet word w (lower-cased, whole word: a maximal run of word characters, so "baaaadge"
    is not "bad"; not part of an @mention or a #hashtag) is a reduplication of lexicon word L
    when it matches L with every letter allowed to repeat (same letter runs, none shorter than
    L's), w != L, and some run of w has three or more letters where L's is shorter: "baaad"
    counts, "baad" does not. When several lexicon words fit, the longest is taken ("goooood" is
    "good", not "god"); lexicon entries that lengthen another entry ("gooood") are folded into it
    first (:func:`fold_lexicon`), so they are variants, not canonical words.

    Columns: lang, correct, noisy, count (occurrences), probability, extra_letters
    (len(noisy) - len(correct)), repeated_letters (lengthened runs' letters in order, "z,y" for
    "crazzzzyyy") and tweets (distinct tweets with the variant); sorted by correct, then
    descending count, then noisy.
    """
    return _mine(texts, lexicon, lang)[0]


def mine_naive(texts: Sequence[str], lexicon: Lexicon | Sequence[str]) -> Counter[tuple[str, str]]:
    """``(correct, noisy)`` counts the CoLeS way: one regex ``\\b(?<![@#])b+a+d+\\b`` per (folded)
    lexicon word over all tweets. Same rule as :func:`mine_reduplications`, hours instead of
    seconds on 1.6 M tweets.

    One difference: ``\\b`` is Python's, for which combining marks are not word characters, so
    "baaad" followed by U+0301 counts here but not there (polars' ``\\w`` includes marks).
    """
    corpus = "\n".join(texts).lower()  # '\n' is a word boundary, so no match spans two tweets
    fits: dict[int, tuple[str, str]] = {}  # word start offset -> (lexicon word, variant)
    # Least preferred first: a better-fitting lexicon word matching the same word overwrites it.
    for word in reversed(_by_preference(_as_lexicon(lexicon).words)):
        pattern = re.compile(r"\b(?<![@#])" + "".join(f"{letter}+" for letter in word) + r"\b")
        for match in pattern.finditer(corpus):
            fits[match.start()] = (word, match.group())
    return Counter((word, variant) for word, variant in fits.values() if _lengthened_letters(variant, word) is not None)


REDUPLICATION_COLUMN_DOCS = {
    "extra_letters": "letters the variant adds to the lexicon word",
    "repeated_letters": "the letters whose runs were lengthened, in order (\"z,y\" for crazzzzyyy)",
    "tweets": "distinct tweets containing the variant",
}


def reduplication_dictionary(tweet_files: Sequence[Path], lexicon_files: Sequence[Path], lang: str = "en",
                             encoding: str = AUTO, num_proc: int = 1, engine: str = "local",
                             ray_address: str | None = None) -> MinedDictionary:
    """Mine tweet files against a lexicon into a dictionary ready for :func:`noisecraft.mining.output.write_dictionary`.

    Each file is read once (a file listed twice, by any path, is mined once) and decoded as
    ``encoding`` says (``auto``: UTF-8, latin-1 for the lines that are not); the stats say how each
    file was read, which lexicon entries were folded, and how many variants were in @mentions or
    #hashtags and so left out. Files are scanned one per task on the ``engine``'s executor (``num_proc``
    local processes, or Ray at ``ray_address``; see :mod:`noisecraft.building.executors`) and their counts summed:
    the same dictionary for any engine and process count.
    """
    import time

    check_engine(engine, ray_address)
    start = time.perf_counter()
    lexicon_words, lexicon_read_as = _read_lexicon(lexicon_files, encoding)
    lexicon = fold_lexicon(lexicon_words)
    files, repeats = unique_files(tweet_files)
    tripled = _tripled_letters(set("".join(lexicon.index)))
    with make_executor(engine, min(num_proc, max(len(files), 1)), ray_address) as pool:
        scanned = list(pool.imap(_scan_file, [(path, encoding, tripled) for path in files]))
    found = _merge([part.candidates for part, _ in scanned], sum(part.tweets for part, _ in scanned))
    rows, report = _rows(found, lexicon, lang)
    top_tags = ", ".join(f"{tag} {count}" for tag, count in report.tag_variants.most_common(5))
    left_out = f"{report.tag_occurrences} occurrence(s) left out" + (f" ({top_tags})" if top_tags else "")
    stats = {"tweets": report.tweets, "lexicon_words": len(lexicon_words), "canonical_words": len({r["correct"] for r in rows}),
             "occurrences": sum(r["count"] for r in rows),
             "in_mentions_or_hashtags": left_out,
             "lexicon_folded": lexicon.describe_folding(),
             "lexicon_lengthened_kept": ", ".join(lexicon.kept) or "none",
             "read_as": describe_files([(path, read_as) for path, (_, read_as) in zip(files, scanned)]),
             "lexicon_read_as": describe_files(lexicon_read_as),
             "repeated_inputs": "; ".join(repeats) or "none",
             "seconds": round(time.perf_counter() - start, 1)}
    names = [path.name for path in files]
    lexicon_names = [Path(p).name for p in unique_files(lexicon_files)[0]]
    return MinedDictionary(
        miner="reduplication", lang=lang, inputs=names,
        params={"lexicon": lexicon_names, "emphatic_run": _EMPHATIC_RUN, "encoding": encoding},
        rows=rows, columns=REDUPLICATION_COLUMNS, column_docs=REDUPLICATION_COLUMN_DOCS, stats=stats,
        description=(f"every tweet word that matches a lexicon word with each letter allowed to repeat (the CoLeS "
                     f"pattern, e.g. b+a+d+ for 'bad'), whole words only and not in @mentions or #hashtags, with some "
                     f"run of {_EMPHATIC_RUN} or more letters that the lexicon word does not have; the closest (longest) "
                     "lexicon word is its canonical form, and lexicon entries that are themselves lengthenings "
                     "('gooood') are folded into the word they lengthen."),
        source_description="Sentiment140-format tweet CSVs matched against the given lexicon",
        license="other",
        citation="\n\n".join((LENGTHENING_CITATION, SENTIMENT140_CITATION, OPINION_LEXICON_CITATION)),
        command=["noisecraft", "mine", "reduplication", *names, "--lexicon", *lexicon_names, "--lang", lang,
                 *([] if encoding == AUTO else ["--encoding", encoding]), "--out", "OUT"],
        use_command="noisecraft build --source glue/sst2 --noise 'reduplication(dictionary={out}, "
                    "dictionary_config={config})' --out CHALLENGE",
        top_extra=("repeated_letters", "tweets"),
    )
