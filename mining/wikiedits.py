"""Mine word-level noise from Wikipedia edit history (the multilingual robustness recipe).

For each page, consecutive revisions are compared. Only the lines that changed are stripped of
markup and split into sentences (each line once per page, cached), which keeps mining close to
the cost of reading the dump. Sentence pairs are kept when
both sides have 2-120 tokens, they differ in fewer than 5 tokens, and their character edit
distance is within 30 % of the shorter sentence. Token deltas (difflib) of equal length give word
pairs ``noisy (older revision) -> correct (newer revision)``; pairs where either side is only
digits or punctuation are dropped. Tokens are Moses tokens, except in Thai, Chinese and Japanese,
whose words come from the segmenter of :mod:`noisecraft.core.text_units` that ``wikiedit@2`` finds words
with (its name and version are in the dictionary's params and stats, so the card says which); without
it, per character. One dump file is one shard: files are mined in parallel and
each finished file is checkpointed, so a crash or Ctrl-C loses at most the files in progress.

Nothing is lost and nothing is silent: a file that is not a readable MediaWiki dump is an error (with
``keep_going`` it is skipped, and the stats that reach the card name it and why), a file damaged
part-way keeps what came before the damage and is named in the stats, the same file listed twice is
mined once (also said), and each file's compression and encoding are reported.
"""

from __future__ import annotations

import hashlib
import json
import logging
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rapidfuzz.distance import Levenshtein, Postfix, Prefix

from noisecraft.building.executors import check_engine, make_executor
from noisecraft.core.citations import WIKIEDIT_CITATION
from noisecraft.core.schema import list_of, value
from noisecraft.core.seeding import params_digest
from noisecraft.core.text_files import cannot_read, unique_files
from noisecraft.core.text_units import tokenize
from noisecraft.dataset.noise_dictionary import with_probabilities
from noisecraft.dataset.repo import atomic_write_text
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.mediawiki import DumpError, DumpReader, PageEnd, Revision
from noisecraft.mining.output import MinedDictionary
from noisecraft.mining.wiki_text import LanguageText, strip_markup

try:  # difflib's algorithm compiled (the same opcodes, tested): about 4x faster on token lists
    from cydifflib import SequenceMatcher
except ImportError:
    from difflib import SequenceMatcher

logger = logging.getLogger(__name__)

Pair = tuple[str, str]  # (correct, noisy)
MAX_BLOCK = 200  # changed lines on either side beyond which a revision is a rewrite, not an edit


def _is_digits_or_punctuation(token: str) -> bool:
    return all(ch.isdigit() or unicodedata.category(ch)[0] in "PS" for ch in token)


def _most_similar(query: str, choices: list[str], cutoff: float = 0.0) -> str | None:
    """The first of ``choices`` most similar to ``query`` (normalised Levenshtein similarity) if that is at least
    ``cutoff``, else None: rapidfuzz's ``process.extractOne`` with that scorer, as a loop of direct scorer calls.

    The direct call trims the strings' common prefix and suffix before comparing them, which ``extractOne``'s
    cached scorer does not: on two versions of a long paragraph it is several times faster (same scores, tested).
    Each call asks only for a score above the best so far (rapidfuzz returns 0 for less, and bounds its search by
    it): only a higher score changes the choice, and it comes back exact.
    """
    best, best_score = None, cutoff
    for choice in choices:
        score = Levenshtein.normalized_similarity(query, choice, score_cutoff=best_score)
        if score >= best_score and (best is None or score > best_score):
            best, best_score = choice, score
            if score == 1.0:  # nothing scores higher
                break
    return best


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """Lines of each revision that the other lacks, in order, after skipping the lines both start and end with.

    A wikitext paragraph is one line, so an edit shows up as the old and new versions of the lines
    it touched; everything else is never parsed, nor split into lines: the shared start and end are found on the
    text (rapidfuzz compares the characters in C) and only the lines between them are split off. The result is
    that of comparing the two revisions' lists of lines from each end (tested exhaustively on short texts).
    """
    head = Prefix.similarity(old, new)
    if head == len(old) and new.startswith("\n", head):  # old is new's first lines: only lines added
        return [], _nonblank(new[head + 1 :].split("\n"))
    if head == len(new) and old.startswith("\n", head):  # new is old's first lines: only lines removed
        return _nonblank(old[head + 1 :].split("\n")), []
    if head == len(old) == len(new):
        return [], []
    # both rests start with the first line that is not shared whole (at the same offset in both)
    start = old.rfind("\n", 0, head) + 1
    old_rest, new_rest = old[start:], new[start:]
    tail = Postfix.similarity(old_rest, new_rest)
    # the lines after a line break in the shared end are shared whole; so is the line before them when one rest
    # is all shared end and the other breaks the line just before it
    if tail == len(old_rest) and new_rest[-tail - 1] == "\n":
        return [], _nonblank(new_rest[: len(new_rest) - tail - 1].split("\n"))
    if tail == len(new_rest) and old_rest[-tail - 1] == "\n":
        return _nonblank(old_rest[: len(old_rest) - tail - 1].split("\n")), []
    old_cut = old_rest.find("\n", len(old_rest) - tail)
    if old_cut < 0:
        a, b = old_rest.split("\n"), new_rest.split("\n")
    else:
        a, b = old_rest[:old_cut].split("\n"), new_rest[: new_rest.find("\n", len(new_rest) - tail)].split("\n")
    in_a, in_b = set(a), set(b)
    return _nonblank(line for line in a if line not in in_b), _nonblank(line for line in b if line not in in_a)


def _nonblank(lines: Iterable[str]) -> list[str]:
    return [line for line in lines if line.strip()]


class SentenceCache:
    """What mining one page computes more than once, remembered until the page ends: the sentences of wikitext
    lines, the tokens of sentences, the sentence pairs of two lines and the word pairs of two sentences. The new
    side of one revision pair is the old side of the next, and reverts and repeated vandalism bring the same
    lines, line pairs and sentence pairs back (on the benchmark's real history, 14 % of the line pairs and 22 %
    of the sentence pairs of a page are repeats). Every table holds pure functions of its key, so a hit returns
    what computing it again would."""

    def __init__(self, text: LanguageText, limit: int = 20_000) -> None:
        self.text = text
        self.limit = limit
        self.lines: dict[str, list[str]] = {}
        self.token_lists: dict[str, list[str]] = {}
        self.quick_lists: dict[str, list[str]] = {}
        self.line_pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
        self.word_pairs: dict[tuple[str, str], list[Pair]] = {}

    def remember(self, table: dict[Any, Any], key: Any, make: Callable[[], Any]) -> Any:
        """``table[key]``, made by ``make()`` the first time; a full table is emptied first (memory stays bounded)."""
        found = table.get(key)
        if found is None:
            found = make()
            if len(table) >= self.limit:
                table.clear()
            table[key] = found
        return found

    def sentences(self, line: str) -> list[str]:
        """The sentences of one wikitext line, markup stripped."""
        return self.remember(self.lines, line, lambda: self.text.sentences(strip_markup(line)))

    def tokens(self, sentence: str) -> list[str]:
        return self.remember(self.token_lists, sentence, lambda: self.text.tokens(sentence))

    def quick_tokens(self, sentence: str) -> list[str]:
        """The regex tokens (:func:`noisecraft.core.text_units.tokenize`) that bound the tokens before they are made."""
        return self.remember(self.quick_lists, sentence, lambda: tokenize(sentence))

    def clear(self) -> None:
        for table in (self.lines, self.token_lists, self.quick_lists, self.line_pairs, self.word_pairs):
            table.clear()


@dataclass
class FileResult:
    """What one dump file gave: pair counts, a few provenance examples per pair, and counters.

    ``error``: the damage that ended a file part-way (what came before is in the counts).
    ``skipped``: why a file that is not a readable dump was left out (only with ``keep_going``).
    ``compression`` and ``encoding``: how the file was read, for the card.
    """

    counts: Counter[Pair] = field(default_factory=Counter)
    examples: dict[Pair, list[dict[str, str]]] = field(default_factory=dict)
    stats: Counter[str] = field(default_factory=Counter)
    error: str | None = None
    skipped: str | None = None
    compression: str = ""
    encoding: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"counts": [[c, n, k] for (c, n), k in self.counts.items()],
                "examples": [[c, n, e] for (c, n), e in self.examples.items()],
                "stats": dict(self.stats), "error": self.error, "compression": self.compression,
                "encoding": self.encoding}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileResult:
        return cls(Counter({(c, n): k for c, n, k in data["counts"]}), {(c, n): e for c, n, e in data["examples"]},
                   Counter(data["stats"]), data["error"], None, data.get("compression", ""), data.get("encoding", ""))


@dataclass(frozen=True)
class WikiEditMiner:
    """Sentence- and word-level edit mining for one language (thresholds as in the paper)."""

    lang: str
    namespaces: tuple[int, ...] = (0,)
    min_tokens: int = 2
    max_tokens: int = 120
    max_differing_tokens: int = 4
    max_relative_distance: float = 0.3
    examples_per_pair: int = 3

    def __post_init__(self) -> None:
        LanguageText(self.lang)  # fails early, with the supported list, for an unsupported language

    def params(self) -> dict[str, Any]:
        """The thresholds, and for zh, ja and th the segmenter (name and version, or per character) that made the
        tokens: it decides the dictionary's keys, so it keys the checkpoints and the card prints it."""
        params = asdict(self)
        segmenter = LanguageText(self.lang).segmenter_name()
        if segmenter is not None:
            params["segmenter"] = segmenter
        return params

    def sentence_pairs(self, cache: SentenceCache, old: str, new: str) -> Iterable[tuple[str, str]]:
        """Aligned (before, after) sentences of the edited paragraphs that differ.

        Each changed line of the new revision is paired with the most similar changed line of the
        old one (at least 50 % similar: a rewrite or a moved section is not an edit); only paired
        lines are stripped of markup and split, and their sentences aligned with difflib.
        """
        old_lines, new_lines = changed_lines(old, new)
        if not old_lines or not new_lines or len(old_lines) * len(new_lines) > MAX_BLOCK * MAX_BLOCK:
            return
        for new_line in new_lines:
            old_line = _most_similar(new_line, old_lines, 0.5)
            if old_line is not None:
                yield from cache.remember(cache.line_pairs, (old_line, new_line),
                                          partial(self._line_pairs, cache, old_line, new_line))

    def _line_pairs(self, cache: SentenceCache, old_line: str, new_line: str) -> list[tuple[str, str]]:
        """The aligned sentence pairs of an old line and the new line paired with it: none when their sentences are
        the same (an edit of markup only, about a third of the line pairs), which difflib would align as equal."""
        before, after = cache.sentences(old_line), cache.sentences(new_line)
        return [] if before == after else self._aligned(before, after)

    @staticmethod
    def _aligned(before: list[str], after: list[str]) -> list[tuple[str, str]]:
        """The (before, after) pairs of two lines' sentences that difflib aligns as replaced; where a replaced
        block has more sentences on one side, each new sentence takes its most similar old one."""
        pairs: list[tuple[str, str]] = []
        for op, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
            if op != "replace":
                continue
            if i2 - i1 == j2 - j1:
                pairs.extend(zip(before[i1:i2], after[j1:j2]))
                continue
            for sentence in after[j1:j2]:
                match = _most_similar(sentence, before[i1:i2])
                if match is not None:
                    pairs.append((match, sentence))
        return pairs

    def word_pairs(self, cache: SentenceCache, before: str, after: str) -> list[Pair]:
        """(correct, noisy) word pairs of one sentence pair that passes the filters, else []."""
        return cache.remember(cache.word_pairs, (before, after), lambda: self._word_pairs(cache, before, after))

    def _word_pairs(self, cache: SentenceCache, before: str, after: str) -> list[Pair]:
        """The filters, cheapest first; a pair is kept when it passes them all, so their order changes nothing."""
        if Levenshtein.distance(before, after) > self.max_relative_distance * min(len(before), len(after)):
            return []
        # the tokenizers (Moses, a segmenter) are slower than the regex tokens' bounds: those first
        if not self._within_regex_bounds(cache, before, after):
            return []
        a, b = cache.tokens(before), cache.tokens(after)
        # every token of one side that the other lacks is in an edit: more than twice the edits allowed of them
        # means more edits than allowed, found before difflib is asked
        if not (self.min_tokens <= len(a) <= self.max_tokens and self.min_tokens <= len(b) <= self.max_tokens) or \
                len(set(a) ^ set(b)) > 2 * self.max_differing_tokens:
            return []
        ops = [op for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
        if not 0 < sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in ops) <= self.max_differing_tokens:
            return []
        pairs = []
        for op, i1, i2, j1, j2 in ops:
            if op == "replace" and i2 - i1 == j2 - j1:
                for noisy, correct in zip(a[i1:i2], b[j1:j2]):
                    if noisy != correct and not _is_digits_or_punctuation(noisy) and not _is_digits_or_punctuation(correct):
                        pairs.append((correct, noisy))
        return pairs

    def _within_regex_bounds(self, cache: SentenceCache, before: str, after: str) -> bool:
        """Whether the regex tokens (:func:`noisecraft.core.text_units.tokenize`) of both sentences are within the bounds
        that spare the slower tokenizer most sentence pairs: at least ``min_tokens`` each (1 for Thai, Chinese and
        Japanese, where a run of the script is one regex token however many words it holds), at most twice
        ``max_tokens``, and at most four times ``max_differing_tokens`` in one sentence only.

        The bounds are close to the tokenizer's own filters but not implied by them (a regex token is not a Moses
        token: ``a_b`` is one regex token and three Moses tokens, English ``a'b`` three and two), so they are part
        of what decides a kept pair.
        """
        quick_a, quick_b = cache.quick_tokens(before), cache.quick_tokens(after)
        fewest = 1 if cache.text.segmented else self.min_tokens
        return fewest <= len(quick_a) <= 2 * self.max_tokens and fewest <= len(quick_b) <= 2 * self.max_tokens and \
            len(set(quick_a) ^ set(quick_b)) <= 4 * self.max_differing_tokens

    def mine_file(self, path: Path, on_page: Callable[[int, int], None] | None = None) -> FileResult:
        """Mine one dump file; a truncated or corrupt file keeps what came before the damage.

        Raises :class:`~noisecraft.errors.InputError` for a file that is not a readable MediaWiki dump.
        """
        text = LanguageText(self.lang)
        cache = SentenceCache(text)
        result = FileResult()
        stats = result.stats
        previous: Revision | None = None
        revisions_at_last_page = 0
        reader = DumpReader(path)
        try:
            for item in reader:
                if isinstance(item, PageEnd):
                    stats["pages"] += 1
                    if item.revisions == 0:
                        stats["pages_without_revisions"] += 1
                    previous = None
                    cache.clear()
                    if on_page is not None:
                        on_page(stats["revisions"] - revisions_at_last_page, stats["word_pairs"])
                        revisions_at_last_page = stats["revisions"]
                    continue
                if item.namespace not in self.namespaces:
                    continue
                stats["revisions"] += 1
                if item.text is None:
                    stats["revisions_without_text"] += 1
                    continue
                if previous is not None and previous.text is not None and previous.text != item.text:
                    self._mine_revision_pair(cache, previous, item, result)
                previous = item
        except DumpError as exc:
            result.error = str(exc)
        result.compression, result.encoding = reader.compression, reader.encoding or "unknown (no XML read)"
        return result

    def _mine_revision_pair(self, cache: SentenceCache, old: Revision, new: Revision, result: FileResult) -> None:
        assert old.text is not None and new.text is not None
        for before, after in self.sentence_pairs(cache, old.text, new.text):
            pairs = self.word_pairs(cache, before, after)
            if not pairs:
                continue
            result.stats["sentence_pairs"] += 1
            for pair in pairs:
                result.stats["word_pairs"] += 1
                result.counts[pair] += 1
                examples = result.examples.setdefault(pair, [])
                if len(examples) < self.examples_per_pair:
                    examples.append({"page": new.page, "old_revision": old.revision_id,
                                     "new_revision": new.revision_id, "before": before, "after": after})


def checkpoint_path(directory: Path, dump: Path, miner: WikiEditMiner) -> Path:
    """Where the finished result of one dump file is kept, keyed by file identity and parameters."""
    try:
        stat = dump.stat()
    except OSError as exc:
        raise cannot_read(dump, exc, "dump") from exc
    key = json.dumps([str(dump.resolve()), stat.st_size, stat.st_mtime_ns, params_digest(miner.params())])
    return directory / f"{hashlib.blake2b(key.encode(), digest_size=10).hexdigest()}.json"


def _read_checkpoint(path: Path) -> FileResult | None:
    """A checkpoint's result, or None (and a warning) when it is unreadable: the file is mined again."""
    try:
        return FileResult.from_json(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("ignoring unreadable checkpoint %s (%s): mining its dump again", path, exc)
        return None


def mine_with_checkpoint(miner: WikiEditMiner, dump: Path, directory: Path,
                         on_page: Callable[[int, int], None] | None = None) -> tuple[FileResult, bool]:
    """Result of one file from its checkpoint if there is one, else mined and checkpointed.

    A file that is not a readable dump raises :class:`InputError` and leaves no checkpoint, so a
    later run tries it again.
    """
    path = checkpoint_path(directory, dump, miner)
    if path.is_file():
        found = _read_checkpoint(path)
        if found is not None:
            return found, True
    result = miner.mine_file(dump, on_page)
    try:
        atomic_write_text(path, json.dumps(result.to_json(), ensure_ascii=False))
    except OSError as exc:
        raise ConfigError(f"cannot write the checkpoint {path}: {exc.strerror or exc}") from exc
    return result, False


def _mine_or_skip(miner: WikiEditMiner, dump: Path, directory: Path, keep_going: bool,
                  on_page: Callable[[int, int], None] | None = None) -> tuple[FileResult, bool]:
    """:func:`mine_with_checkpoint`, or with ``keep_going`` an empty result that says why the file was skipped."""
    try:
        return mine_with_checkpoint(miner, dump, directory, on_page)
    except InputError as exc:
        if not keep_going:
            raise
        logger.warning("skipped %s", exc)
        return FileResult(skipped=str(exc)), False


def _mine_one(job: tuple[WikiEditMiner, Path, Path, bool]) -> tuple[FileResult, bool]:
    miner, dump, directory, keep_going = job
    return _mine_or_skip(miner, dump, directory, keep_going)


def mine_dumps(miner: WikiEditMiner, dumps: list[Path], checkpoints: Path, num_proc: int = 1,
               progress: bool = True, keep_going: bool = False, engine: str = "local",
               ray_address: str | None = None) -> tuple[list[FileResult], Counter[str]]:
    """Mine every dump (in parallel over files on the ``engine``'s executor: see :mod:`noisecraft.building.executors`),
    resuming from checkpoints; results in input order. On a Ray cluster the dumps and the checkpoint folder must
    be at the same path on every node (a shared file system), so an interrupted cluster run resumes too.

    A file that is not a readable MediaWiki dump raises :class:`InputError`, or with ``keep_going``
    gives an empty :class:`FileResult` whose ``skipped`` says why (counted in ``files_skipped``).
    """
    from tqdm.auto import tqdm

    run: Counter[str] = Counter()
    results: list[FileResult] = []
    if engine != "local" or (num_proc > 1 and len(dumps) > 1):
        with make_executor(engine, min(num_proc, max(len(dumps), 1)), ray_address) as pool:
            with tqdm(total=len(dumps), unit="file", desc="wikiedits", disable=not progress) as bar:
                for result, resumed in pool.imap(_mine_one, [(miner, d, checkpoints, keep_going) for d in dumps]):
                    results.append(result)
                    run["files_resumed"] += resumed
                    run["files_skipped"] += result.skipped is not None
                    bar.update(1)
                    bar.set_postfix(pages=sum(r.stats["pages"] for r in results),
                                    pairs=sum(r.stats["word_pairs"] for r in results))
        return results, run
    with tqdm(unit="page", desc="wikiedits", disable=not progress) as bar:
        totals = Counter(revisions=0, pairs_before=0)

        def on_page(new_revisions: int, file_pairs: int) -> None:
            totals["revisions"] += new_revisions
            pairs = totals["pairs_before"] + file_pairs
            bar.update(1)
            bar.set_postfix(revisions=totals["revisions"], pairs=pairs,
                            pairs_per_s=f"{pairs / max(bar.format_dict['elapsed'], 1e-9):.0f}")

        for dump in dumps:
            result, resumed = _mine_or_skip(miner, dump, checkpoints, keep_going, on_page)
            results.append(result)
            totals["pairs_before"] += result.stats["word_pairs"]
            run["files_resumed"] += resumed
            run["files_skipped"] += result.skipped is not None
    return results, run


def typo_distance(word: str) -> int:
    """Most edits a typo of ``word`` plausibly has: 2, and one more per 4 letters beyond 8."""
    return max(2, len(word) // 4)


def dictionary_rows(lang: str, results: list[FileResult], examples_per_pair: int = 3) -> list[dict[str, Any]]:
    """Merge per-file results into dictionary rows with the typo/content-edit flags."""
    counts: Counter[Pair] = Counter()
    examples: dict[Pair, list[dict[str, str]]] = {}
    for result in results:
        counts.update(result.counts)
        for pair, found in result.examples.items():
            kept = examples.setdefault(pair, [])
            kept.extend(found[: examples_per_pair - len(kept)])
    correct_words = {correct for correct, _ in counts}
    rows = []
    for (correct, noisy), count in counts.items():
        case_only = correct.casefold() == noisy.casefold()
        has_digits = any(ch.isdigit() for ch in correct + noisy)
        capitalised = correct[:1].isupper() and not case_only
        real_word = noisy in correct_words
        distance = Levenshtein.distance(correct, noisy)
        rows.append({
            "lang": lang, "correct": correct, "noisy": noisy, "count": count,
            "distance": distance, "case_only": case_only, "has_digits": has_digits, "capitalised": capitalised,
            "real_word": real_word,
            "likely_typo": not (case_only or has_digits or capitalised or real_word) and distance <= typo_distance(correct),
            "examples": examples.get((correct, noisy), []),
        })
    rows.sort(key=lambda r: (r["correct"], -r["count"], r["noisy"]))
    return with_probabilities(rows)


def wikiedit_columns() -> dict[str, Any]:
    """The miner's own columns, beside the dictionary's required ones."""
    flag = value("bool")
    return {
        "distance": value("int32"), "case_only": flag, "has_digits": flag, "capitalised": flag,
        "real_word": flag, "likely_typo": flag,
        "examples": list_of({"page": value("string"), "old_revision": value("string"), "new_revision": value("string"),
                             "before": value("string"), "after": value("string")}),
    }


WIKIEDIT_COLUMN_DOCS = {
    "distance": "character Levenshtein distance between correct and noisy",
    "case_only": "the forms differ only in letter case (a content/style edit, not a typo)",
    "has_digits": "either form has a digit (numbers and dates: content edits)",
    "capitalised": "the correct form starts with a capital (names and proper nouns: often content edits)",
    "real_word": "the noisy form is itself a correct word elsewhere in this dictionary (real-word edit)",
    "likely_typo": "none of the flags above and distance <= max(2, len(correct) // 4): a probable typo",
    "examples": "up to 3 provenance examples: page, old and new revision ids, sentence before and after",
}


def _by_name(dump: Path, message: str) -> str:
    """``"name.xml, line 5: problem"`` from ``"/some/folder/name.xml, line 5: problem"``: the card names files,
    not the folders of the machine that mined them."""
    where = str(dump)
    return dump.name + message[len(where):] if message.startswith(where) else f"{dump.name}: {message}"


def mine_wikiedits(dumps: list[Path], lang: str, checkpoints: Path, num_proc: int = 1, progress: bool = True,
                   namespaces: tuple[int, ...] = (0,), keep_going: bool = False, engine: str = "local",
                   ray_address: str | None = None) -> MinedDictionary:
    """Mine dumps into a dictionary ready for :func:`noisecraft.mining.output.write_dictionary`.

    Each file is mined once however often it is listed (by path or through another path to the same
    file). A file that is not a readable MediaWiki dump raises :class:`InputError`; with
    ``keep_going`` it is skipped instead. The stats say which files were skipped, damaged or
    repeated, and how each was read (compression, encoding). ``engine="ray"`` mines the files as Ray tasks
    (at ``ray_address``, else on a Ray started here): the same dictionary as the local pool.
    """
    import time

    check_engine(engine, ray_address)
    miner = WikiEditMiner(lang, namespaces=namespaces)
    start = time.perf_counter()
    dumps, repeats = unique_files(dumps)
    results, run = mine_dumps(miner, dumps, checkpoints, num_proc, progress, keep_going, engine, ray_address)
    rows = dictionary_rows(lang, results, miner.examples_per_pair)
    totals: Counter[str] = Counter()
    for result in results:
        totals.update(result.stats)
    mined = [(dump, r) for dump, r in zip(dumps, results) if r.skipped is None]
    errors = [_by_name(dump, r.error) for dump, r in mined if r.error]
    skipped = [_by_name(dump, r.skipped) for dump, r in zip(dumps, results) if r.skipped is not None]
    stats = {
        "files": len(mined), "files_resumed": run["files_resumed"],
        **{key: totals[key] for key in ("pages", "pages_without_revisions", "revisions", "revisions_without_text",
                                        "sentence_pairs", "word_pairs")},
        "likely_typos": sum(r["likely_typo"] for r in rows),
        "damaged_files": "; ".join(errors) if errors else "none",
        "skipped_files": "; ".join(skipped) if skipped else "none",
        "repeated_inputs": "; ".join(repeats) if repeats else "none",
        "read_as": "; ".join(f"{dump.name}: {r.compression or '?'}, {r.encoding or 'not recorded (older checkpoint)'}"
                             for dump, r in mined) or "none",
        "seconds": round(time.perf_counter() - start, 1),
    }
    segmenter = miner.params().get("segmenter")
    if segmenter is not None:
        stats["segmenter"] = segmenter
    tokens = (f" (tokens: the words of {segmenter}, which wikiedit@2 looks up, and each other non-space "
              "character)" if segmenter is not None else "")
    names = [dump.name for dump, _ in mined]
    namespace_args = [] if tuple(namespaces) == (0,) else ["--namespaces", *map(str, namespaces)]
    return MinedDictionary(
        miner="wikiedits", lang=lang, inputs=names, params=miner.params(), rows=rows,
        columns=wikiedit_columns(), column_docs=WIKIEDIT_COLUMN_DOCS, stats=stats,
        description=(f"consecutive revisions of each page compared{tokens}; sentence pairs kept when both have "
                     f"{miner.min_tokens}-{miner.max_tokens} tokens, they differ in at most {miner.max_differing_tokens} "
                     f"tokens and their edit distance is within {miner.max_relative_distance:.0%} of the shorter; "
                     "equal-length token replacements give (noisy = older revision, correct = newer revision) pairs, "
                     "digits-or-punctuation-only tokens dropped (Stickland et al., 2023)."),
        source_description="MediaWiki XML history dumps (Wikipedia text, CC BY-SA)",
        license="cc-by-sa-3.0",
        citation=WIKIEDIT_CITATION,
        command=["noisecraft", "mine", "wikiedits", *names, "--lang", lang, *namespace_args, "--out", "OUT"],
        use_command="noisecraft build --source xquad --lang " + lang
                    + " --noise 'wikiedit(dictionary={out}, dictionary_config={config})' --out CHALLENGE",
        top_extra=("likely_typo", "distance"),
    )
