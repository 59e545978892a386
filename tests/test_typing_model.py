"""``noisecraft mine typing`` and ``typing@1``: classification by hand, recovery of a known process, every input
kind, reproducibility, protected spans, typeable output, the CLI, and the errors."""

from __future__ import annotations

import json
import random
import string
import subprocess
import sys
from pathlib import Path

import datasets
import pytest

from noisecraft.core.edits import Edit, apply_edits
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.registry import mine
from noisecraft.mining.typing import mine_typing
from noisecraft.mining.typing.classify import align_texts
from noisecraft.noise_models.keyboard_layouts import load_layout
from noisecraft.noise_models.registry import create
from noisecraft.noise_models.typing_format import key_positions

QWERTY = key_positions(load_layout("qwerty"))
DATA = Path(__file__).parent / "data"


def kinds(clean: str, noisy: str) -> list[str]:
    return [edit.kind for edit in align_texts(clean, noisy, QWERTY).edits]


@pytest.mark.parametrize(("clean", "noisy", "expected"), [
    ("hello there", "helllo there", ["insertion-doubling"]),        # an l repeated
    ("hello", "hrello", ["insertion-neighbour"]),                   # r is beside e on QWERTY
    ("hello", "hpello", ["insertion-other"]),                       # p is neither h nor e, nor beside them
    ("hello", "hwllo", ["substitution-neighbour"]),                 # w for e: neighbouring keys
    ("hello", "hxllo", ["substitution-other"]),                     # x for e: two rows down, far
    ("the cat", "teh cat", ["transposition"]),
    ("the cat", "te cat", ["deletion"]),
    ("Paris is big", "paris is big", ["case"]),
    ("Where is it?", "Where is it", ["final-question-dropped"]),
    ("Yes, it is.", "Yes it is.", ["punctuation-dropped"]),
    ("a lot of it", "alot of it", ["whitespace-merge"]),
    ("cannot go", "can not go", ["whitespace-split"]),
    ("go home ", "go home", ["whitespace-trim"]),
    ("because it", "xqzvw it", ["word-replacement"]),
])
def test_edits_are_classified_as_a_person_would(clean, noisy, expected):
    assert kinds(clean, noisy) == expected


def test_edits_belong_to_their_word_and_its_fifth():
    [edit] = align_texts("my wonderful day", "my wondrful day", QWERTY).edits  # the second e of wonderful (index 4 of 9)
    assert (edit.word, edit.position) == (1, 2)
    [swap] = align_texts("abcde", "abced", QWERTY).edits
    assert (swap.kind, swap.position) == ("transposition", 3)
    [distance] = [e.distance for e in align_texts("hello", "hxllo", QWERTY).edits]
    assert distance == "2"


def _known_process(seed: int, texts: int) -> list[tuple[str, str]]:
    """Words of distinct letters; each word: deletion with p = 0.10, else a transposition with q = 0.05; a final '?'
    dropped with r = 0.3."""
    draw = random.Random(seed)
    pairs = []
    for _ in range(texts):
        words, noisy = [], []
        for _ in range(draw.randint(3, 9)):
            word = "".join(draw.sample(string.ascii_lowercase, draw.randint(3, 9)))
            u, i = draw.random(), draw.randrange(len(word) - 1)
            words.append(word)
            if u < 0.10:
                word = word[:i] + word[i + 1:]
            elif u < 0.15:
                word = word[:i] + word[i + 1] + word[i] + word[i + 2:]
            noisy.append(word)
        clean = " ".join(words) + "?"
        pairs.append((clean, " ".join(noisy) + ("" if draw.random() < 0.3 else "?")))
    return pairs


@pytest.fixture(scope="module")
def known(tmp_path_factory) -> tuple[Path, list[tuple[str, str]]]:
    pairs = _known_process(7, 2000)
    folder = tmp_path_factory.mktemp("known")
    (folder / "pairs.tsv").write_text("".join(f"{c}\t{n}\n" for c, n in pairs), encoding="utf-8")
    mine_typing([folder / "pairs.tsv"]).write(folder / "model")
    return folder / "model", pairs


def test_the_fit_recovers_a_known_process_within_sampling_error(known):
    """~12,000 words: the standard error of the hit rate is 0.003, of the deletion share 0.011, of the '?' rate 0.01;
    the tolerances are about five of them."""
    model = json.loads((known[0] / "typing-model.json").read_text(encoding="utf-8"))
    words, hits = (sum(col) for col in zip(*model["hit_by_length"].values()))
    assert hits / words == pytest.approx(0.15, abs=0.015)
    for bucket in ("4", "8"):  # the process does not depend on length
        seen, hit = model["hit_by_length"][bucket]
        assert hit / seen == pytest.approx(0.15, abs=0.04)
    mix = model["edit_mix"]
    assert mix["deletion"] / (mix["deletion"] + mix["transposition"]) == pytest.approx(2 / 3, abs=0.06)
    eligible, dropped = model["text_events"]["final-question-dropped"]
    assert eligible == 2000 and dropped / eligible == pytest.approx(0.3, abs=0.05)
    assert model["dispersion"]["inverse_k"] < 0.1  # words are hit independently: no per-text clustering
    assert sum(mix.values()) == mix["deletion"] + mix["transposition"] + mix["final-question-dropped"]


def test_sampling_the_fitted_model_gives_the_process_back(known):
    folder, pairs = known
    model = create("typing", model=str(folder))
    clean = [c for c, _ in pairs]
    sampled = model(clean, seed=0)
    counted = mine_typing_from_pairs(list(zip(clean, [n.text for n in sampled])), folder.parent)
    words, hits = (sum(col) for col in zip(*counted["hit_by_length"].values()))
    assert hits / words == pytest.approx(0.15, abs=0.02)
    eligible, dropped = counted["text_events"]["final-question-dropped"]
    assert dropped / eligible == pytest.approx(0.3, abs=0.05)
    for text, noised in zip(clean, sampled):
        assert apply_edits(text, noised.edits) == noised.text
        assert all(edit.kind.startswith("typing:") for edit in noised.edits)


def mine_typing_from_pairs(pairs: list[tuple[str, str]], folder: Path) -> dict:
    path = folder / "sampled.tsv"
    path.write_text("".join(f"{c}\t{n}\n" for c, n in pairs), encoding="utf-8")
    return mine_typing([path]).model


def test_the_same_seed_gives_byte_identical_output_and_another_seed_another(known):
    model = create("typing", model=str(known[0]), rate_scale=2.0)
    texts = [c for c, _ in known[1][:200]]
    first, again, other = model.augment(texts, seed=1), model.augment(texts, seed=1), model.augment(texts, seed=2)
    assert first == again and first != other


def test_protected_spans_and_only_typeable_characters(known):
    model = create("typing", model=str(known[0]), word_rate=1.0)
    text = "keep THIS span but change every other word please?"
    [noised] = model([text], seed=0, protected=[[(5, 14)]])
    assert noised.edits and all(e.end <= 5 or e.start >= 14 for e in noised.edits)
    assert noised.text[noised.text.index("THIS"):][:9] == "THIS span"
    allowed = set(text) | set(string.ascii_letters) | set(" ?,.")
    for noisy in model.augment(["Ünïcode wörds and plain words"] * 50, seed=3):
        assert set(noisy) <= allowed | set("Ünïcodewörds")


def _squad(path: Path, questions: dict[str, str]) -> Path:
    qas = [{"id": i, "question": q, "answers": []} for i, q in questions.items()]
    path.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "c", "qas": qas}]}]}),
                    encoding="utf-8")
    return path


def test_every_input_kind_fits_a_model_typing_samples(tmp_path):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("clean\tnoisy\nWhat is the capital of France?\twhat is teh capital of france\n", encoding="utf-8")
    jsonl = tmp_path / "pairs.jsonl"
    jsonl.write_text(json.dumps({"clean": "Who wrote the novel?", "noisy": "Who wrote the novle"}) + "\n",
                     encoding="utf-8")
    clean = _squad(tmp_path / "xquad.json", {"q1": "How many people live there?", "q2": "When was it built?"})
    noisy = _squad(tmp_path / "typed.json", {"q1": "How many poeple live there", "q3": "unpaired"})
    listed = tmp_path / "list.tsv"
    listed.write_text("because\tbecuase\nreceive\trecieve\n", encoding="utf-8")
    cases = {"tsv": [tsv], "jsonl": [jsonl], "squad": [clean, noisy], "m2": [DATA / "learner_sample.m2"],
             "list": [listed]}
    for name, paths in cases.items():
        fitted = mine_typing(paths)
        fitted.write(tmp_path / name)
        rate = {"word_rate": 0.5} if name == "list" else {"rate_scale": 50.0}
        model = create("typing", model=str(tmp_path / name), **rate)
        assert model.augment(["The quick brown fox jumps over the lazy dog"] * 20, seed=0), name
        assert (tmp_path / name / "README.md").read_text(encoding="utf-8").startswith("# Typing model")
    squad = mine_typing([clean, noisy]).model
    assert squad["counts"]["texts"] == 1 and squad["counts"]["skipped"] == {"question id in one SQuAD file only": 2}
    assert mine_typing([listed]).model["hit_by_length"] is None


def test_m2_pairs_keep_only_spelling_and_orthography_edits():
    from noisecraft.mining.gec_m2 import read_m2
    from noisecraft.mining.typing.inputs import m2_pair

    sentences = read_m2(DATA / "learner_sample.m2").sentences
    for sentence in sentences:
        clean, noisy = m2_pair(sentence)
        assert noisy == " ".join(sentence.tokens)
        spelling = [e for e in sentence.edits if e.tag in ("R:SPELL", "R:ORTH")]
        if not spelling and all(e.tag != "Mec" for e in sentence.edits):
            assert clean == noisy


def test_unaligned_pairs_are_skipped_and_counted_and_no_edit_is_one_line(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("the same text\tthe same txt\nsomething\tentirely different words here\nno tab here\n"
                    "\tempty clean side\n", encoding="utf-8")
    skipped = mine_typing([path]).model["counts"]["skipped"]
    assert skipped == {"different texts (similarity below 0.5)": 1, "empty text": 1, "not a clean<TAB>noisy line": 1}
    unchanged = tmp_path / "unchanged.tsv"
    unchanged.write_text("same text here\tsame text here\nanother one\tsomething else entirely, really\n",
                         encoding="utf-8")
    with pytest.raises(InputError, match="no usable edit") as error:
        mine_typing([unchanged])
    assert "unchanged.tsv" in str(error.value) and "\n" not in str(error.value)


def test_model_errors_are_one_line(tmp_path):
    with pytest.raises(InputError, match="come in pairs"):
        mine_typing([_squad(tmp_path / "a.json", {"q": "x y"})])
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a typing model"):
        create("typing", model=str(tmp_path / "bad.json"))
    with pytest.raises(ConfigError, match="no typing-model.json"):
        create("typing", model=str(tmp_path))
    listed = tmp_path / "list.tsv"
    listed.write_text("because\tbecuase\n", encoding="utf-8")
    mine_typing([listed]).write(tmp_path / "words")
    with pytest.raises(ConfigError, match="give word_rate="):
        create("typing", model=str(tmp_path / "words"))
    with pytest.raises(ConfigError, match="--overwrite"):
        mine_typing([listed]).write(tmp_path / "words")


def test_the_builtin_model_is_learner_writing_and_samples():
    model = create("typing")
    assert "learner-writing" in model.describe()
    noised = model(["A sentence that people would type into a search box, with a question?"] * 50, seed=0)
    assert all(apply_edits("A sentence that people would type into a search box, with a question?",
                           [Edit(*e) for e in n.edits]) == n.text for n in noised)


def test_mining_from_python_is_the_registry_miner(tmp_path):
    listed = tmp_path / "list.tsv"
    listed.write_text("because\tbecuase\n", encoding="utf-8")
    fitted, path = mine("typing", [listed], tmp_path / "m", lang="en")
    assert path == tmp_path / "m" / "typing-model.json" and fitted.model["counts"]["list_pairs"] == 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *args], capture_output=True, text=True)


def test_mine_typing_then_build_from_the_command_line(tmp_path, known):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"{c}\t{n}\n" for c, n in known[1][:500]), encoding="utf-8")
    mined = _cli("mine", "typing", str(pairs), "--out", str(tmp_path / "model"))
    assert mined.returncode == 0, mined.stderr
    assert "edit kind" in mined.stdout and "P(hit)" in mined.stdout and "deletion" in mined.stdout
    spec = f"typing(model={tmp_path / 'model'}, rate_scale=3)"
    built = _cli("build", "--source", "demo", "--noise", spec, "--config-name", "demo-en-typing",
                 "--out", str(tmp_path / "set"), "--no-progress")
    assert built.returncode == 0, built.stderr
    rows = datasets.load_dataset(str(tmp_path / "set"), "demo-en-typing", split="validation")
    edits = [e for row in rows for e in row["noise_edits"]]
    assert edits and all(e["kind"].startswith("typing:") for e in edits)
    failed = _cli("mine", "typing", str(pairs), "--out", str(tmp_path / "model"))
    assert failed.returncode != 0 and "--overwrite" in failed.stderr


def _clustered_process(seed: int, texts: int) -> list[tuple[str, str]]:
    """Half the texts have no error, the other half a deletion in each word with p = 0.3: a per-text factor of 0 or
    2 around the mean rate 0.15, whose variance (1/k) is 1."""
    draw = random.Random(seed)
    pairs = []
    for _ in range(texts):
        factor, words, noisy = draw.choice((0.0, 2.0)), [], []
        for _ in range(draw.randint(3, 9)):
            word = "".join(draw.sample(string.ascii_lowercase, draw.randint(3, 9)))
            i = draw.randrange(len(word))
            words.append(word)
            noisy.append(word[:i] + word[i + 1:] if draw.random() < 0.15 * factor else word)
        pairs.append((" ".join(words), " ".join(noisy)))
    return pairs


def test_the_per_text_dispersion_is_recovered_and_sampled(tmp_path):
    """Over five seeds the estimate of 1/k = 1 ranged 0.89-1.05 on 2000 texts; sampled texts, re-fitted, cluster
    alike (the sampler draws the factor from Gamma(k, 1/k), not the two-point law, with the same variance)."""
    pairs = _clustered_process(3, 2000)
    (tmp_path / "pairs.tsv").write_text("".join(f"{c}\t{n}\n" for c, n in pairs), encoding="utf-8")
    fitted = mine_typing([tmp_path / "pairs.tsv"])
    assert fitted.model["dispersion"]["inverse_k"] == pytest.approx(1.0, abs=0.25)
    fitted.write(tmp_path / "model")
    clean = [c for c, _ in pairs]
    sampled = create("typing", model=str(tmp_path / "model")).augment(clean, seed=0)
    again = mine_typing_from_pairs(list(zip(clean, sampled)), tmp_path)
    assert again["dispersion"]["inverse_k"] == pytest.approx(1.0, abs=0.4)
