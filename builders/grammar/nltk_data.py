"""An NLTK data folder made offline: Debian's WordNet and a perceptron tagger trained on a local tagged corpus.

``nltk.download`` needs the network. Grammar noise (``grammar``, ``grammar-attack``) needs two NLTK models:
WordNet (word choice) and the averaged perceptron tagger (where each error type applies). Both can be made
without the network, and this is the one place that knows how (``noisecraft setup nltk-data DIR``, and the test
suite's fixtures):

* WordNet 3.0 from Debian's ``wordnet-base`` + ``wordnet-sense-index`` (``/usr/share/wordnet``), copied into
  ``DIR/corpora/wordnet`` (NLTK refuses symlinks out of its data root) with NLTK's ``lexnames`` table, which
  Debian does not ship;
* the perceptron trained on a POS-tagged file (CoNLL-2003 layout: ``word TAG ...`` per line, blank lines between
  sentences), written as ``DIR/taggers/averaged_perceptron_tagger_eng``. Training is seeded, so the same corpus
  and iterations give byte-identical weights (their digest enters the seed of grammar noise).

Give the folder to the models as ``nltk_data=DIR`` (or set ``NLTK_DATA``).

The folder is a transaction, as a build's files are: it is written in a hidden sibling folder and renamed into
place with a completion marker (:data:`COMPLETE`) inside, so an interruption or a full disk leaves ``DIR`` absent or
as it was. A ``DIR`` without the marker that holds nothing but what this module writes (a folder an older version
left half-written) is replaced; any other existing ``DIR`` is refused.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

from noisecraft.dataset.repo import write_failed
from noisecraft.errors import ConfigError, InputError
from noisecraft.extras import require
from noisecraft.grammar.tagging import PERCEPTRON

#: Where Debian's wordnet-base and wordnet-sense-index put WordNet 3.0.
DEBIAN_WORDNET = Path("/usr/share/wordnet")
WORDNET_HINT = "apt-get install -y wordnet-base wordnet-sense-index"
#: NLTK's ``lexnames`` (WordNet's lexicographer files, in their numbered order).
LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession",
    "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition", "verb.consumption",
    "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession",
    "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)
_LEXNAME_POS = {"adj": 3, "adv": 4, "noun": 1, "verb": 2}
#: The file that marks a folder this module finished writing (it is the last one written, before the rename).
COMPLETE = ".noisecraft-nltk-data"
#: What a folder this module writes holds: a folder with only these (and no :data:`COMPLETE`) is a half-written one.
WRITTEN = frozenset({"corpora", "taggers"})
#: More distinct tags than any part-of-speech tag set has (the Penn Treebank's has 45): the column holds words.
MAX_TAGS = 100


def debian_wordnet_missing(source: Path = DEBIAN_WORDNET) -> str | None:
    """Why WordNet cannot be copied from ``source`` (with the command that installs it), or ``None``."""
    if (source / "index.sense").is_file() and (source / "data.noun").is_file():
        return None
    return f"{source} lacks WordNet 3.0: {WORDNET_HINT}"


def copy_wordnet(root: Path, source: Path = DEBIAN_WORDNET) -> None:
    """``<root>/corpora/wordnet``: the WordNet files of ``source`` copied, plus NLTK's ``lexnames``."""
    missing = debian_wordnet_missing(source)
    if missing:
        raise ConfigError(missing)
    folder = root / "corpora" / "wordnet"
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.is_file():
            shutil.copy2(path, folder / path.name)
    (folder / "lexnames").write_text("".join(f"{i:02d}\t{name}\t{_LEXNAME_POS[name.split('.')[0]]}\n"
                                             for i, name in enumerate(LEXNAMES)), encoding="utf-8")


def tagged_sentences(path: Path) -> list[list[tuple[str, str]]]:
    """Sentences of a file with ``word TAG ...`` lines (CoNLL-2003: word, POS, chunk, NER), blank lines between
    sentences; ``#`` comments and ``-DOCSTART-`` lines are skipped. A line without a tag, or whose second column is
not a tag (:func:`_check_tag`), is an error naming it."""
    sentences: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    seen: set[str] = set()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read a UTF-8 POS-tagged file ({exc.__class__.__name__})") from None
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("-DOCSTART-"):
            if current:
                sentences.append(current)
                current = []
        elif not line.startswith("#"):
            parts = line.split()
            if len(parts) < 2:
                raise InputError(path, f"expected 'word TAG ...', got {line[:60]!r}", row=f"line {number}")
            current.append((parts[0], parts[1]))
            _check_tag(path, parts[1], number, seen)
    if current:
        sentences.append(current)
    if not sentences:
        raise InputError(path, "no tagged sentence (expected 'word TAG ...' lines)")
    return sentences


def _check_tag(path: Path, tag: str, number: int, seen: set[str]) -> None:
    """Refuse a second column that is not a part-of-speech tag: grammar noise reads Penn Treebank tags (``NN``,
    ``VBZ``, ``PRP$``, punctuation), which have no lowercase letter, and a tag set is small (:data:`MAX_TAGS`).
    Untagged prose (``The cat sat ...``) fails both: its second column is words."""
    if any(char.islower() for char in tag):
        raise InputError(path, f"{tag!r} is not a part-of-speech tag (expected 'word TAG ...' with Penn Treebank "
                               "tags such as NN, VBZ; is this untagged text?)", row=f"line {number}")
    seen.add(tag)
    if len(seen) > MAX_TAGS:
        raise InputError(path, f"more than {MAX_TAGS} distinct tags in the second column: it is not a "
                               "part-of-speech tag set (expected Penn Treebank tags such as NN, VBZ)",
                         row=f"line {number}")


def train_perceptron(root: Path, sentences: list[list[tuple[str, str]]], iterations: int) -> None:
    """NLTK's perceptron trained on ``sentences`` by NLTK's own ``train``, written as
    ``<root>/taggers/averaged_perceptron_tagger_eng``.

    The training shuffles with the global ``random``: the state is saved and restored around a fixed seed, so the
    weights are the same on every run and the process's generator is left as it was. The files are written here,
    not by ``train(save_loc=...)``, with sorted keys and classes: the folder's bytes are its digest, which enters
    the seed of grammar noise."""
    require("nltk", "grammar")
    from nltk.tag.perceptron import PerceptronTagger

    if iterations < 1:
        raise ConfigError(f"iterations must be at least 1, got {iterations}")
    state = random.getstate()
    try:
        random.seed(0)
        tagger = PerceptronTagger(load=False)
        tagger.train(sentences, nr_iter=iterations)
    finally:
        random.setstate(state)
    folder = root / "taggers" / PERCEPTRON
    folder.mkdir(parents=True, exist_ok=True)
    for part, value in zip(("weights", "tagdict", "classes"), tagger.encode_json_obj()):
        (folder / f"{PERCEPTRON}.{part}.json").write_text(
            json.dumps(sorted(value) if part == "classes" else value, sort_keys=True), encoding="utf-8")


def prepare_nltk_data(out: Path, tagged: Path, iterations: int = 5, wordnet: Path = DEBIAN_WORDNET) -> Path:
    """Write ``out`` (WordNet + perceptron) as one transaction, checking every input before anything is written;
    returns ``out``. The folder is staged beside ``out`` and renamed into place; a disk that refuses the writes is
    a one-line :class:`~noisecraft.dataset.repo.WriteError`, with ``out`` as it was."""
    missing = debian_wordnet_missing(wordnet)
    if missing:
        raise ConfigError(missing)
    _check_replaceable(out)
    sentences = tagged_sentences(tagged)
    staging = out.with_name(f".{out.name}.staging-{os.getpid()}")
    old = staging.with_name(f"{staging.name}.old")
    try:
        _remove_stale_staging(out)
        staging.mkdir(parents=True)
        train_perceptron(staging, sentences, iterations)
        copy_wordnet(staging, wordnet)
        (staging / COMPLETE).write_text(f"{tagged.name} iterations={iterations}\n", encoding="utf-8")
        if out.exists():  # a half-written folder (checked above): set aside, removed once the new one is in place
            os.replace(out, old)
        os.replace(staging, out)
    except OSError as exc:
        raise write_failed(out, exc, safe=f"{out} is as it was") from exc
    finally:
        for leftover in (staging, old):
            shutil.rmtree(leftover, ignore_errors=True)
    return out


def _remove_stale_staging(out: Path) -> None:
    """Remove the staging folders beside ``out`` of runs killed outright (``kill -9``: no ``finally`` ran): those
    whose process no longer runs, or that this process's id names (an earlier process had it)."""
    if not out.parent.is_dir():
        return
    for folder in out.parent.glob(f".{out.name}.staging-*"):
        pid = folder.name.rsplit("-", 1)[1].removesuffix(".old")
        if pid.isdigit() and (int(pid) == os.getpid() or not _running(int(pid))):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _check_replaceable(out: Path) -> None:
    """Refuse an ``out`` that is not absent, an empty folder, or a folder this module left half-written."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ConfigError(f"{out} exists and is not a folder: give a new folder")
    if (out / COMPLETE).exists():
        raise ConfigError(f"{out} already exists (a complete NLTK data folder): use it, or give a new folder")
    others = sorted(path.name for path in out.iterdir() if path.name not in WRITTEN)
    if others:
        raise ConfigError(f"{out} already exists and holds other files ({', '.join(others[:3])}): give a new folder")
