"""Speech-interface artefacts in isolation (NoiseQA §4.2): recorded deletions, the final question mark,
function/content words from the shipped lists, and one named entity replaced (source tags or a tagger)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.dataset.repo import DatasetRepo
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import model_input, prepare_steps
from noisecraft.noise_models.interface_artefacts import NOT_TAGGED, deletions
from noisecraft.noise_models.registry import create

from conftest import REPO_ROOT, corpus
from tiny_models import CORPUS_EN, tiny_model

WIKIANN_SAMPLE = REPO_ROOT / "tests" / "data" / "wikiann_sample_en.txt"


def noisy(name: str, text: str, lang: str = "en", protected=None, seed: int = 0, **params) -> str:
    [noised] = create(name, lang=lang, **params)([text], seed=seed, protected=[protected] if protected else None)
    assert apply_edits(text, noised.edits) == noised.text
    return noised.text


@pytest.mark.parametrize(("text", "expected"), [
    ("Paris, France - the U.S. doesn't care ; it's 3.5 long-term ?", "Paris France the U.S. doesn't care it's 3.5 long-term"),
    ('Who is the Doctor\'s enemy in "Doctor Who"?', "Who is the Doctor's enemy in Doctor Who"),
    ("¿Dónde se celebró la Super Bowl 50?", "Dónde se celebró la Super Bowl 50"),
    ("黑豹队的防守丢了多少分？", "黑豹队的防守丢了多少分"),
])
def test_drop_punctuation_keeps_word_internal_marks_and_leaves_no_stray_space(text, expected):
    assert noisy("drop-punctuation", text, lang="zh" if "队" in text else "en") == expected


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("When did Beyoncé start becoming popular?", "en", "When did Beyoncé start becoming popular"),
    ("Is it a city , or a state ?", "en", "Is it a city , or a state"),
    ("¿Cuántos puntos? ¿Dónde se celebró?", "es", "¿Cuántos puntos? Dónde se celebró"),
    ("Πόσους πόντους έχασε η άμυνα;", "el", "Πόσους πόντους έχασε η άμυνα"),
    ("كم نقطة تخلى عنها دفاع البانثرز؟", "ar", "كم نقطة تخلى عنها دفاع البانثرز"),
    ("ทีมรับของแพนเธอร์สยอมแพ้ที่คะแนนเท่าไร", "th", "ทีมรับของแพนเธอร์สยอมแพ้ที่คะแนนเท่าไร"),
    ("A statement; not a question.", "en", "A statement; not a question."),
])
def test_drop_question_mark_only_the_final_one(text, lang, expected):
    assert noisy("drop-question-mark", text, lang) == expected


def test_protected_spans_are_left_alone():
    text = "What is the capital of France?"
    assert noisy("drop-question-mark", text, protected=[(23, 30)]) == text
    assert noisy("drop-function-words", text, protected=[(0, 11)]) == "What is the capital France?"
    assert noisy("drop-content-words", text, protected=[(12, 19)]) == "What is the capital of?"


def test_function_and_content_words_partition_the_words():
    text = "What is the name of the stadium where Super Bowl 50 was played?"
    assert noisy("drop-function-words", text) == "name stadium Super Bowl 50 played?"
    assert noisy("drop-content-words", text) == "What is the of the where was?"
    assert noisy("drop-function-words", "It's what they don't know.") == "know."
    assert noisy("drop-function-words", "Wer hat den Roman geschrieben?", lang="de") == "Roman geschrieben?"


def test_word_dropping_rate_is_per_example_and_seeded():
    text = "What is the name of the stadium where Super Bowl 50 was played?"
    kept = {noisy("drop-content-words", text, rate=0.5, seed=seed) for seed in range(6)}
    assert len(kept) > 1
    assert noisy("drop-content-words", text, rate=0.5, seed=3) == noisy("drop-content-words", text, rate=0.5, seed=3)
    assert noisy("drop-content-words", text, rate=0.0) == text


def test_a_language_without_a_word_list_is_a_clear_error():
    with pytest.raises(ConfigError, match="no function-word list for 'tr'"):
        create("drop-function-words", lang="tr")


def test_deletions_never_glue_words_together():
    text = "a - b"
    [edit] = deletions(text, [(2, 3)], [], "x")
    assert apply_edits(text, [edit]) == "a b"
    edits = deletions("What is it", [(0, 4), (5, 7)], [], "x")
    assert apply_edits("What is it", edits) == "it"


def test_replace_entity_from_source_tags():
    sentence = "Ada Lovelace worked with Charles Babbage in London ."
    outputs = {noisy("replace-entity", sentence, tags=str(WIKIANN_SAMPLE), seed=seed) for seed in range(8)}
    assert outputs == {"[PER] worked with Charles Babbage in London .", "Ada Lovelace worked with [PER] in London .",
                       "Ada Lovelace worked with Charles Babbage in [LOC] ."}
    assert noisy("replace-entity", sentence, tags=str(WIKIANN_SAMPLE), types="LOC", placeholder="there") == (
        "Ada Lovelace worked with Charles Babbage in there .")
    [missing] = create("replace-entity", tags=str(WIKIANN_SAMPLE))(["Not in the file ."])
    assert missing.failure == NOT_TAGGED


def test_replace_entity_reads_conll_iob1(tmp_path):
    path = tmp_path / "eng.testa"
    path.write_text("-DOCSTART- -X- -X- O\n\nEU NNP I-NP I-ORG\nrejects VBZ I-VP O\nGerman JJ I-NP I-MISC\n"
                    "call NN I-NP O\nto TO I-VP O\nBoycott VB I-VP O\nPeter NNP I-NP I-PER\nBlackburn NNP I-NP I-PER\n",
                    encoding="utf-8")
    text = "EU rejects German call to Boycott Peter Blackburn"
    outputs = {noisy("replace-entity", text, tags=str(path), seed=seed) for seed in range(8)}
    assert outputs == {"[ORG] rejects German call to Boycott Peter Blackburn", "EU rejects German call to Boycott [PER]"}


def test_replace_entity_with_a_tagger_is_batched_cached_and_recorded():
    folder = str(tiny_model("ner-tagger"))
    model = create("replace-entity", tagger=folder)
    ids = [str(i) for i in range(len(CORPUS_EN))]
    prepare_steps(model, model_input(model, CORPUS_EN, 0, ids, "text"), 0, "text", progress=False)
    results = model(CORPUS_EN, seed=0)
    assert any(r.edits for r in results)
    for text, noised in zip(CORPUS_EN, results):
        assert apply_edits(text, noised.edits) == noised.text
        assert all(e.replacement in ("[PER]", "[ORG]", "[LOC]") for e in noised.edits) and len(noised.edits) <= 1
    assert model.provenance()["entities"]["model"]["model"] == "ner-tagger"
    assert "/" not in model.params_json


@pytest.mark.parametrize(("params", "message"), [
    ({}, "exactly one place"),
    ({"tags": str(WIKIANN_SAMPLE), "tagger": "x/y"}, "exactly one place"),
    ({"tags": str(WIKIANN_SAMPLE), "types": "MISC"}, "types must be among"),
    ({"tags": str(WIKIANN_SAMPLE), "revision": "main"}, "revision is the tagger's"),
])
def test_replace_entity_needs_one_source_of_entities(params, message):
    with pytest.raises(ConfigError, match=message):
        create("replace-entity", **params)


def test_artefacts_on_real_xquad_questions(tmp_path):
    """The 1,190 XQuAD-en questions: every edit replays, answers are untouched, most questions lose their mark."""
    repo = DatasetRepo(tmp_path, "1.0.0")
    built = build_config(repo, ConfigRequest(source="xquad", lang="en", data_file=corpus("xquad/xquad.en.json"),
                                             noise="drop-question-mark"), progress=False)
    write_card(repo)
    rows = pq.read_table(built.path).to_pylist()
    assert len(rows) == 1190 and built.stats["rows_changed"] > 1150
    for row in rows:
        edits = [Edit(**{k: e[k] for k in Edit._fields}) for e in row["noise_edits"]]
        assert apply_edits(row["original_question"], edits) == row["question"]
        assert not row["question"].endswith("?")


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("When did Beyoncé start becoming popular?", "en", "when did Beyoncé start becoming popular?"),
    ("¿Dónde se celebró la Super Bowl 50?", "es", "¿dónde se celebró la Super Bowl 50?"),  # the first letter
    ('"Doctor Who" aired when?', "en", '"doctor Who" aired when?'),
    ("Πότε ξεκίνησε;", "el", "πότε ξεκίνησε;"),
    ("I think so?", "en", "I think so?"),  # "I" and words with another capital keep their case
    ("NFL teams won?", "en", "NFL teams won?"),
    ("iPhone sales rose when?", "en", "iPhone sales rose when?"),
    ("黑豹队的防守丢了多少分？", "zh", "黑豹队的防守丢了多少分？"),  # no case to change
])
def test_lowercase_start_lowers_the_first_letter_as_a_recogniser_writes(text, lang, expected):
    assert noisy("lowercase-start", text, lang=lang) == expected


def test_lowercase_start_records_one_edit_honours_protection_and_rate():
    [noised] = create("lowercase-start")(["What is it?"])
    assert noised.edits == (Edit(0, 1, "W", "w", "lowercase-start"),)
    assert noisy("lowercase-start", "Who wrote Hamlet?", protected=[(0, 3)]) == "Who wrote Hamlet?"
    half = create("lowercase-start", rate=0.5)(["What is it?"] * 400, seed=1, ids=[str(i) for i in range(400)])
    lowered = sum(n.text.startswith("w") for n in half)
    assert 160 < lowered < 240  # each text drawn on its own
    assert create("lowercase-start", rate=0.0)(["What is it?"])[0].text == "What is it?"
