"""``grammar@1`` (Yin et al., 2020, probabilistic): where each error type applies, the sampling budget and
weights, recorded edits, protected spans and token fields, per-example determinism, the confusion table and
tagger errors; then a GLUE build with a tagger trained on CoNLL-2003 and confusions mined from CoNLL-2014.

Contract tests tag by hand or with a tagger trained on the repository's tagged sample; WordNet comes from
Debian's wordnet-base (tests/tiny_models.py).
"""

from __future__ import annotations

import json
import math

import datasets
import pyarrow.parquet as pq
import pytest

import noisecraft as nc
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.core.seeding import ExampleRng
from noisecraft.errors import ConfigError, InputError
from noisecraft.grammar import tagging
from noisecraft.grammar.confusions import load_confusions
from noisecraft.grammar.error_types import EMPTY, ERROR_TYPES
from noisecraft.grammar.operations import SiteFinder
from noisecraft.grammar.tagging import Word, resolve_tagger_name, word_spans
from noisecraft.noise_models.grammar import GrammarErrors, parse_types, sample_errors, whitespace_tokens_modified

from conftest import REPO_ROOT, corpus
from tiny_models import tiny_model


@pytest.fixture(scope="module")
def confusions() -> str:
    return str(tiny_model("gec-confusions-sample"))


@pytest.fixture(scope="module")
def nltk_data() -> str:
    return str(tiny_model("nltk-data-sample"))


@pytest.fixture(scope="module")
def model(confusions, nltk_data) -> GrammarErrors:
    return nc.noise("grammar@1", confusions=confusions, nltk_data=nltk_data, tagger="nltk")


def tagged(text: str, tags: str) -> list[Word]:
    """Words of ``text`` with hand-written tags (one per word of :func:`word_spans`)."""
    spans, labels = word_spans(text), tags.split()
    assert len(spans) == len(labels), [text[s:e] for s, e in spans]
    return [Word(s, e, text[s:e], t) for (s, e), t in zip(spans, labels)]


def finder(model: GrammarErrors, types: str, keep_tokens: bool = False, precise_vform: bool = False) -> SiteFinder:
    runtime = model.runtime()
    return SiteFinder(runtime.confusions, parse_types(types), runtime.wordnet, keep_tokens, precise_vform)


def outputs(model, text, words, kind, keep_tokens=False, protected=(), precise_vform=False):
    """Every text one type can make of a hand-tagged sentence."""
    sites = finder(model, kind, keep_tokens, precise_vform).sites(text, words, protected).get(kind, [])
    return {apply_edits(text, list(option.edits)) for site in sites for option in site.options}


# --- where each type applies -------------------------------------------------------------------

SENTENCE = "The old teacher often gives the students very difficult homework ."
TAGS = "DT JJ NN RB VBZ DT NNS RB JJ NN ."


def test_articles_are_replaced_deleted_and_inserted_before_bare_noun_phrases(model):
    made = outputs(model, SENTENCE, tagged(SENTENCE, TAGS), "ArtOrDet")
    assert "A old teacher often gives the students very difficult homework ." in made  # the -> a (learner weights)
    assert "Old teacher often gives the students very difficult homework ." in made  # deleted, capital moved
    assert "The old teacher often gives students very difficult homework ." in made
    assert "The old teacher often gives the students very difficult a homework ." not in made  # "difficult" is JJ: no slot
    text = "Students like warm places ."
    assert "A students like warm places ." in outputs(model, text, tagged(text, "NNS VBP JJ NNS ."), "ArtOrDet")


def test_prepositions_and_linking_words_follow_their_confusion_rows(model):
    text = "I am interested in the history and the art ."
    words = tagged(text, "PRP VBP JJ IN DT NN CC DT NN .")
    assert outputs(model, text, words, "Prep") == {"I am interested on the history and the art ."}  # in -> on only
    assert outputs(model, text, words, "Trans") == {"I am interested in the history but the art .",  # and -> but
                                                    "Also I am interested in the history and the art ."}  # sentence start
    verb = "She discussed the plan ."
    assert outputs(model, verb, tagged(verb, "PRP VBD DT NN ."), "Prep") == {"She discussed about the plan ."}


def test_noun_number_agreement_and_verb_form(model):
    words = tagged(SENTENCE, TAGS)
    assert outputs(model, SENTENCE, words, "Nn") == {
        "The old teachers often gives the students very difficult homework .",
        "The old teacher often gives the student very difficult homework ."}  # lemminflect: "homework" has no plural
    assert outputs(model, SENTENCE, words, "SVA") == {"The old teacher often give the students very difficult homework ."}
    verb_forms = outputs(model, SENTENCE, words, "Vform")
    assert {text.split()[4] for text in verb_forms} == {"give", "gave", "giving", "given"}


def changed_words(text: str, made: set[str]) -> set[tuple[str, str]]:
    """(original word, new word) of each one-word change."""
    return {(a, b) for other in made for a, b in zip(text.split(), other.split()) if a != b}


def test_grammar2_verb_forms_are_guarded_by_tag_lemma_and_case(model):
    text = "He told Bill that Bill plays and they were late ."
    words = tagged(text, "PRP VBZ NNP IN VB VBZ CC PRP VBD JJ .")  # "told" and the second "Bill" mistagged
    loose = changed_words(text, outputs(model, text, words, "Vform"))
    precise = changed_words(text, outputs(model, text, words, "Vform", precise_vform=True))
    assert {("told", "tell"), ("Bill", "Billed"), ("plays", "play"), ("were", "was")} <= loose  # grammar@1
    assert not {w for w, _ in precise} & {"told", "Bill"}  # told is no VBZ form; a capital inside the sentence is a name
    assert ("plays", "play") not in precise and ("were", "was") not in precise  # agreement alone: that is SVA
    assert {("plays", "played"), ("plays", "playing"), ("were", "be"), ("were", "been")} <= precise
    first = "Bill the customers ."  # a capital that starts the sentence is the sentence's
    assert ("Bill", "Billed") in changed_words(first, outputs(model, first, tagged(first, "VB DT NNS ."), "Vform",
                                                              precise_vform=True))


def test_grammar2_budget_is_whitespace_tokens_and_rows_record_the_share(confusions, nltk_data, monkeypatch):
    import noisecraft.noise_models.grammar as grammar

    text = 'Amrozi accused his brother, whom he called "the witness", of deliberately distorting his evidence.'
    assert len(text.split()) == 14 and len(word_spans(text)) == 19
    budgets = []
    real = grammar.sample_errors
    monkeypatch.setattr(grammar, "sample_errors", lambda *a, **k: budgets.append(a[2]) or real(*a, **k))
    v2 = nc.noise("grammar@2", confusions=confusions, nltk_data=nltk_data, tagger="nltk", rate=0.3)
    [noised] = v2([text], seed=0, ids=["a"])
    nc.noise("grammar@1", confusions=confusions, nltk_data=nltk_data, tagger="nltk", rate=0.3)([text], seed=0, ids=["a"])
    assert budgets == [5, 6]  # ceil(0.3 x 14 whitespace tokens); grammar@1: ceil(0.3 x 19 tagger words)
    modified, tokens = whitespace_tokens_modified(text, noised.edits)
    assert noised.columns == {"tokens_modified": modified / tokens} and tokens == 14
    assert whitespace_tokens_modified("The cat sat .", [Edit(0, 8, "The cat", "Cat", "ArtOrDet")]) == (2, 4)
    assert whitespace_tokens_modified("a b", [Edit(2, 2, "", "x ", "Prep")]) == (1, 2)  # an insertion touches its word


def test_grammar2_card_reports_the_papers_statistic(confusions, nltk_data, tmp_path):
    noise = nc.noise("grammar@2", confusions=confusions, nltk_data=nltk_data, tagger="nltk")
    [built] = nc.build("demo", noise, tmp_path / "out", fields=["question"], progress=False)
    rows = pq.read_table(built.path).to_pylist()
    shares = [whitespace_tokens_modified(r["original_question"], [Edit(e["start"], e["end"], e["original"],
                                                                        e["replacement"], e["kind"])
                                                                   for e in r["noise_edits"]]) for r in rows]
    assert [r["noise_tokens_modified"] for r in rows] == pytest.approx([m / t for m, t in shares])
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    mean = 100 * sum(m / t for m, t in shares) / len(shares)
    assert "Words modified, as Yin et al. (2020) count them" in card and f"{mean:.2f} %" in card


def test_word_choice_takes_up_to_ten_inflected_wordnet_synonyms(model):
    text = "The dogs quickly ran home ."
    sites = finder(model, "Wchoice").sites(text, tagged(text, "DT NNS RB VBD NN ."))["Wchoice"]
    by_word = {text[min(e.start for o in s.options for e in o.edits):][:5]: s for s in sites}
    assert all(len(site.options) <= 10 and len({o.weight for o in site.options}) == 1 for site in sites)  # uniform
    dogs = {o.edits[0].replacement for o in by_word["dogs "].options}
    assert "hounds" in dogs and all(form.endswith("s") for form in dogs)  # synonyms of a plural noun are plural
    assert {o.edits[0].replacement for o in by_word["ran h"].options} >= {"scarpered", "escaped"}  # past tense kept
    assert finder(model, "Wchoice").sites("It is .", tagged("It is .", "PRP VBZ .")) == {}  # no synonyms of "be"


def test_word_order_swaps_an_adverb_with_an_adjective_participle_or_modal(model):
    made = outputs(model, SENTENCE, tagged(SENTENCE, TAGS), "Worder")
    assert made == {"The old teacher often gives the students difficult very homework ."}
    text = "They should carefully consider it ."
    assert outputs(model, text, tagged(text, "PRP MD RB VB PRP ."), "Worder") == {"They carefully should consider it ."}
    assert outputs(model, "It is not done .", tagged("It is not done .", "PRP VBZ RB VBN ."), "Worder") == set()


def test_protected_spans_and_keep_tokens(model):
    words = tagged(SENTENCE, TAGS)
    protected = [(0, 3), (50, 58)]  # "The" and "homework"
    for kind in ERROR_TYPES:
        for made in outputs(model, SENTENCE, words, kind, protected=protected):
            assert made.startswith("The ") and "homework" in made
        for made in outputs(model, SENTENCE, words, kind, keep_tokens=True):
            assert len(made.split()) == len(SENTENCE.split())


# --- sampling ---------------------------------------------------------------------------------


def test_draw_is_proportional_to_the_weights():
    rng = ExampleRng(1)
    counts = [0, 0, 0]
    for _ in range(6000):
        counts[rng.weighted([1.0, 2.0, 3.0])] += 1
    assert [round(c / 1000) for c in counts] == [1, 2, 3]


def test_budget_is_ceil_rate_words_and_each_word_changes_once(model):
    text = SENTENCE
    sites = finder(model, "all").sites(text, tagged(text, TAGS))
    weights = model.runtime().confusions.type_weights
    for seed in range(40):
        edits = sample_errors(sites, weights, math.ceil(0.15 * 11), ExampleRng(seed))
        assert len({e.kind for e in edits}) <= 2 and len(edits) <= 2 * 2  # two attempts; a swap is two edits
        apply_edits(text, edits)  # sorted, inside the text, never overlapping


def test_rate_budget_and_determinism_per_example(model):
    texts = ["The old teacher often gives the students very difficult homework .", "She walks to school .",
             "My brother plays football with his friends on Sundays ."]
    ids = ["a", "b", "c"]
    together = model(texts, seed=5, ids=ids)
    alone = [model([text], seed=5, ids=[i])[0] for text, i in zip(texts, ids)]
    assert together == alone  # the same example gets the same errors in any batch
    assert model(texts, seed=6, ids=ids) != together
    for text, noised in zip(texts, together):
        assert apply_edits(text, list(noised.edits)) == noised.text
        assert len(noised.edits) <= 2 * math.ceil(0.15 * len(word_spans(text)))
        assert {e.kind for e in noised.edits} <= set(ERROR_TYPES)
    unchanged = nc.noise("grammar", confusions=model.confusions, nltk_data=model.nltk_data, tagger="nltk", rate=0.0)(texts)
    assert [(n.text, n.edits) for n in unchanged] == [(t, ()) for t in texts]


def test_types_restrict_the_errors(confusions, nltk_data):
    only = nc.noise("grammar", confusions=confusions, nltk_data=nltk_data, tagger="nltk", types="Nn, SVA", rate=0.5)
    for noised in only(["The teachers are happy with the progress of their students ."] * 5, ids=list("abcde")):
        assert {e.kind for e in noised.edits} <= {"Nn", "SVA"}
    assert only.runtime().confusions.type_weights.keys() == {"Nn", "SVA"}
    with pytest.raises(ConfigError, match="types='Nouns'"):
        nc.noise("grammar", confusions=confusions, nltk_data=nltk_data, tagger="nltk", types="Nouns")


# --- the confusion table, the tagger, the spec ---------------------------------------------------------


def test_confusion_table_weights(confusions):
    loaded = load_confusions(confusions)
    assert loaded.type_weights == {"ArtOrDet": 7, "Prep": 2, "Trans": 2, "Nn": 2, "SVA": 3, "Vform": 2, "Wchoice": 3,
                                   "Worder": 2}
    the = loaded.row("ArtOrDet", "the")
    assert dict(zip(the.forms, the.weights)) == {"a": 2, EMPTY: 2} and the.total == 4
    assert loaded.row("Prep", "of") is None


def test_tables_that_are_not_gec_confusions_are_refused(tmp_path):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("the\tteh\t3\n", encoding="utf-8")
    with pytest.raises(InputError, match="pairs.tsv, line 1: not a GEC confusion table: no error_type column"):
        load_confusions(str(tsv))
    with pytest.raises(ConfigError, match="needs confusions="):
        load_confusions("")
    import pyarrow as pa

    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist([{"lang": "en", "correct": "the", "noisy": "this", "count": 1, "probability": 1.0,
                                          "error_type": "ArtOrDet"}]), bad)
    with pytest.raises(InputError, match="bad.parquet, row 1: ArtOrDet pair 'the' -> 'this' is outside"):
        load_confusions(str(bad))


def test_spec_checks_language_and_records_the_tagger(model, confusions, nltk_data):
    with pytest.raises(ConfigError, match="lang"):
        nc.noise("grammar", lang="de", confusions=confusions, nltk_data=nltk_data)
    seeded = model.seed_params()
    assert seeded["tagger"] == "nltk:averaged_perceptron_tagger_eng" and len(seeded["tagger_digest"]) == 16
    assert "confusions_digest" in seeded and "nltk_data" not in seeded  # folders enter by content, not by path
    assert model.provenance()["wordnet"] == "3.0"
    assert nc.noise(f"grammar@1(confusions='{confusions}', nltk_data='{nltk_data}', tagger=nltk)") == model


def test_auto_tagger_is_nltk_without_spacy(monkeypatch):
    monkeypatch.setattr(tagging.importlib.util, "find_spec", lambda name: None)
    assert resolve_tagger_name("auto") == "nltk"
    monkeypatch.setattr(tagging.importlib.util, "find_spec", lambda name: object())
    assert resolve_tagger_name("auto") == "spacy:en_core_web_sm"
    assert resolve_tagger_name("spacy") == "spacy:en_core_web_sm"
    with pytest.raises(ConfigError, match="unknown tagger 'berkeley'"):
        resolve_tagger_name("berkeley")


def test_spacy_tagger_reads_token_offsets_and_fine_tags(monkeypatch):
    class Token:
        def __init__(self, text, idx, tag):
            self.text, self.idx, self.tag_, self.is_space = text, idx, tag, text.isspace()

    class Pipeline:
        meta = {"lang": "en", "name": "core_web_sm", "version": "3.8.0"}

        def pipe(self, texts):
            for text in texts:
                yield [Token(text[s:e], s, "NN") for s, e in word_spans(text)]

    monkeypatch.setattr(tagging, "_load_spacy", lambda name: Pipeline())
    tagger = tagging.SpacyTagger("en_core_web_sm")
    assert tagger.tag(["Two  cats ."]) == [[Word(0, 3, "Two", "NN"), Word(5, 9, "cats", "NN"), Word(10, 11, ".", "NN")]]
    assert tagger.identity() == {"tagger": "spacy:en_core_web_sm", "tagger_version": "3.8.0"}


def test_missing_nltk_data_is_a_clear_error(monkeypatch, tmp_path):
    import nltk

    monkeypatch.setattr(nltk, "download", lambda *args, **kwargs: False)
    with pytest.raises(ConfigError, match=f"{tmp_path} has no NLTK perceptron tagger"):
        tagging.load_tagger("nltk", str(tmp_path))
    monkeypatch.setattr(nltk.data, "find", lambda *args, **kwargs: (_ for _ in ()).throw(LookupError()))
    with pytest.raises(ConfigError, match="perceptron tagger .* is not installed and could not be downloaded"):
        tagging.load_tagger("nltk")


# --- through the pipeline -------------------------------------------------------------------------------


def test_token_tag_build_keeps_entities_and_one_tag_per_token(model, tmp_path):
    noise = nc.noise("grammar", confusions=model.confusions, nltk_data=model.nltk_data, tagger="nltk", rate=0.5,
                     keep_tokens=True)
    [built] = nc.build("wikiann", noise, tmp_path / "out", data_file=REPO_ROOT / "tests" / "data" / "wikiann_sample_en.txt",
                       protect_entities=True, progress=False)
    table = pq.read_table(built.path).to_pylist()
    assert built.stats["rows"] == built.stats["rows_in"] and built.stats["edits"] > 0
    for row in table:
        assert len(row["tokens"]) == len(row["original_tokens"]) == len(row["ner_tags"])
        for token, original, tag in zip(row["tokens"], row["original_tokens"], row["ner_tags"]):
            assert tag == 0 or token == original  # entity tokens untouched


def test_perturb_a_dataset_with_answers_protected(model):
    question = "Which river flows through the capital of the country?"
    dataset = datasets.Dataset.from_dict({"id": ["q1"], "question": [question], "context": ["The river flows ."],
                                          "answers": [{"text": ["river"], "answer_start": [4]}]})
    out = nc.perturb(dataset, nc.noise("grammar", confusions=model.confusions, nltk_data=model.nltk_data, tagger="nltk",
                                       rate=0.5), ["context"], labels=nc.LabelLayout(span_labels={"context": "answers"}))
    row = out[0]
    start = row["answers"]["answer_start"][0]
    assert row["context"][start : start + 5] == "river"
    assert json.loads(row["noise_params"])["tagger"] == "nltk"


def test_mrpc_dev_with_conll_tagger_and_conll2014_confusions(tmp_path):
    """Real corpora: the paper's source of confusions, a tagger trained on CoNLL-2003, MRPC dev sentence1."""
    from noisecraft.mining.gec import gec_dictionary
    from noisecraft.mining.output import write_dictionary

    mined = tmp_path / "gec"
    write_dictionary(mined, gec_dictionary([corpus("gec/conll14st-test-data/noalt/official-2014.combined.m2")]))
    noise = nc.noise("grammar@1", confusions=str(mined), nltk_data=str(tiny_model("nltk-data-conll2003")), tagger="nltk")
    [built] = nc.build("glue/mrpc", noise, tmp_path / "out", data_file=corpus("glue/MRPC/dev.tsv"), progress=False)
    rows = pq.read_table(built.path).to_pylist()
    assert len(rows) == 408 and built.stats["rows_changed"] > 390
    modified = sum(len(r["noise_edits"]) / len(word_spans(r["original_sentence1"])) for r in rows) / len(rows)
    assert 0.13 < modified < 0.18  # grammar@1 counts the tagger's words (README, "Measured")
    v2 = nc.noise("grammar@2", confusions=str(mined), nltk_data=str(tiny_model("nltk-data-conll2003")), tagger="nltk")
    [paper] = nc.build("glue/mrpc", v2, tmp_path / "out2", data_file=corpus("glue/MRPC/dev.tsv"), progress=False)
    shares = pq.read_table(paper.path).column("noise_tokens_modified").to_pylist()
    assert abs(100 * sum(shares) / len(shares) - 14.53) <= 1.0  # the paper's 14.53 %, counted as its code counts
    assert set(built.stats["edits_by_kind"]) == set(ERROR_TYPES) - {"Worder"} or set(built.stats["edits_by_kind"]) == set(
        ERROR_TYPES)
    for row in rows:
        edits = [Edit(e["start"], e["end"], e["original"], e["replacement"], e["kind"]) for e in row["noise_edits"]]
        assert apply_edits(row["original_sentence1"], edits) == row["sentence1"]


def test_recipe_builds_from_local_files_with_mined_confusions(tmp_path, nltk_data):
    """scripts/recipes/grammar-glue.toml with the confusions mined as its header says (SST-2 and QNLI read from the
    5-row slices to keep the test short)."""
    from noisecraft.mining.gec import gec_dictionary
    from noisecraft.mining.output import write_dictionary

    mined = tmp_path / "gec-confusions"
    write_dictionary(mined, gec_dictionary([corpus("gec/conll14st-test-data/noalt/official-2014.combined.m2")]))
    sets = [f"configs.{n}.noise.0.{key}={value}" for n in range(4)
            for key, value in (("confusions", mined), ("nltk_data", nltk_data), ("tagger", "nltk"))]
    sets += ["configs.0.data_file=glue_slices_fastnlp/SST-2/dev.tsv", "configs.2.data_file=glue_slices_fastnlp/QNLI/dev.tsv"]
    recipe = REPO_ROOT / "scripts" / "recipes" / "grammar-glue.toml"
    built = nc.build_recipe(recipe, tmp_path / "out", data_dir=corpus("glue").parent, sets=sets, progress=False)
    assert [b.name for b in built] == ["sst2-grammar", "mrpc-grammar", "qnli-grammar", "mnli-grammar"]
    assert [b.stats["rows"] for b in built] == [5, 408, 5, 5]
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "Learner grammar errors as in Yin et al. (2020)" in card and "yin-etal-2020-robustness" in card
