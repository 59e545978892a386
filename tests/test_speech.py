"""Speech-interface noise (asr@1): real offline engines end to end (espeak-ng -> pocketsphinx), tiny random
Whisper models (openai-whisper and transformers) for batching, ordering, caching and determinism, gTTS behind
a clear error without network. Every test has its own NOISECRAFT_CACHE (conftest)."""

from __future__ import annotations

import json
import tempfile

import pyarrow.parquet as pq
import pytest

from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
from noisecraft.core.edits import Edit, apply_edits
from noisecraft.core.stats import normalised_scores, without_case_and_punctuation
from noisecraft.dataset.repo import DatasetRepo
from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import model_input, prepare_steps
from noisecraft.noise_models.registry import create, format_noise, parse_noise
from noisecraft.noise_models.speech import SpeechInterfaceNoise
from noisecraft.noise_models.speech_asr import write_domain_lm
from noisecraft.noise_models.speech_audio import SAMPLE_RATE, decode_pcm, encode_pcm, to_16k
from noisecraft.noise_models.speech_tts import EspeakSynthesiser, espeak_library, espeak_speaker

from tiny_models import CORPUS_EN, tiny_model

QUESTIONS = CORPUS_EN[:4]


@pytest.fixture
def domain_lm(tmp_path):
    """An ARPA model of the corpus questions: pocketsphinx then transcribes espeak speech nearly exactly."""
    return str(write_domain_lm(CORPUS_EN, tmp_path / "questions.arpa"))


def fresh(**params) -> SpeechInterfaceNoise:
    """A spec whose runtime is loaded again (a new process, as far as in-memory state goes)."""
    model = SpeechInterfaceNoise(**params)
    model.runtime().caches().memo.clear()
    return model


def test_espeak_pocketsphinx_end_to_end_with_a_domain_lm(domain_lm):
    model = create("asr", lang="en", tts="espeak", asr="pocketsphinx", lm=domain_lm)
    results = model(QUESTIONS)
    for question, noised in zip(QUESTIONS, results):
        assert noised.failure is None
        assert apply_edits(question, noised.edits) == noised.text
        assert all(edit.kind == "asr" for edit in noised.edits)
        assert noised.text == noised.text.lower() and "?" not in noised.text  # pocketsphinx: no case, no punctuation
    scores = normalised_scores(QUESTIONS, [n.text for n in results])
    assert scores["wer"] < 35  # near-exact with the domain LM (measured: one or two words lost per set)
    provenance = model.provenance()
    assert provenance["tts"]["engine"] == "espeak-ng" and provenance["tts"]["voice"] == "en-us"
    assert provenance["asr"]["engine"] == "pocketsphinx" and provenance["asr"]["lm"].startswith("sha256:")


def test_the_cut_dictionary_leaves_no_file_behind(domain_lm, tmp_path, monkeypatch):
    """pocketsphinx reads the dictionary cut to the LM's words when its decoder is made; the file goes then (it was
    left in the temporary folder by every process that decoded with an LM)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    model = fresh(tts="espeak", asr="pocketsphinx", lm=domain_lm)
    assert all(noised.text for noised in model(QUESTIONS[:2]))
    assert list(scratch.iterdir()) == []


def test_espeak_pocketsphinx_generic_model_gives_some_transcript():
    [noised] = create("asr", lang="en", tts="espeak", asr="pocketsphinx")(["What is the capital city of France?"])
    assert noised.text.strip() and apply_edits("What is the capital city of France?", noised.edits) == noised.text


def test_audio_is_16k_and_survives_the_cache_format():
    synthesiser = EspeakSynthesiser("en-us", "f3", 175)
    clip = synthesiser.synthesise("Who wrote the novel?")
    assert clip.dtype.name == "float32" and 0.5 * SAMPLE_RATE < len(clip) < 4 * SAMPLE_RATE
    assert abs(decode_pcm(encode_pcm(clip)) - clip).max() < 1e-4
    import numpy as np

    second = np.sin(np.arange(22050) * 2 * np.pi * 440 / 22050).astype(np.float32)  # one second of A4 at 22,050 Hz
    resampled = to_16k(second, 22050)
    assert len(resampled) == 16000 and abs(np.abs(np.fft.rfft(resampled)).argmax() - 440) <= 1


def test_whisper_batched_equals_one_at_a_time_in_input_order(tmp_path, monkeypatch):
    checkpoint = str(tiny_model("whisper-openai") / "model.pt")
    texts = ["Why?", *QUESTIONS, "Why?", QUESTIONS[1]]  # lengths out of order, and repeats
    batched = fresh(tts="espeak", asr="whisper", asr_model=checkpoint, batch_size=3).augment(texts)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "other-cache"))  # the batch size is not in the cache key
    single = fresh(tts="espeak", asr="whisper", asr_model=checkpoint, batch_size=1).augment(texts)
    assert batched == single
    assert batched[0] == batched[5] and batched[2] == batched[6]
    assert len(set(batched[:5])) == 5  # the tiny model's text depends on the audio: order is really checked
    again = fresh(tts="espeak", asr="whisper", asr_model=checkpoint, batch_size=3).augment(texts[::-1])
    assert again == batched[::-1]


def test_transformers_whisper_batched_equals_one_at_a_time(tmp_path, monkeypatch):
    folder = str(tiny_model("whisper-hf"))
    batched = fresh(tts="espeak", asr="hf-whisper", asr_model=folder, batch_size=4).augment(QUESTIONS)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "other-cache"))  # the batch size is not in the cache key
    single = fresh(tts="espeak", asr="hf-whisper", asr_model=folder, batch_size=1).augment(QUESTIONS)
    assert batched == single and len(set(batched)) == len(QUESTIONS)
    provenance = fresh(tts="espeak", asr="hf-whisper", asr_model=folder).provenance()["asr"]
    assert provenance["model"] == "whisper-hf" and provenance["revision"].startswith("sha256:")


def test_caches_spare_synthesis_and_recognition(monkeypatch, domain_lm):
    model = fresh(tts="espeak", asr="pocketsphinx", lm=domain_lm)
    first = model.augment(QUESTIONS, seed=0)
    runtime = model.runtime()
    runtime.caches().memo.clear()  # as in a new process: only the on-disk caches remain

    def fail(*args):
        raise AssertionError("computed again")

    monkeypatch.setattr(EspeakSynthesiser, "synthesise", fail)
    monkeypatch.setattr(type(runtime.recogniser), "recognise", fail)
    assert model.augment(QUESTIONS, seed=7) == first  # another seed: transcripts from the cache
    # a second recogniser on the same voice reads the audio cache: nothing is synthesised again
    other = fresh(tts="espeak", asr="whisper", asr_model=str(tiny_model("whisper-openai") / "model.pt"))
    assert len(other.augment(QUESTIONS)) == len(QUESTIONS)


def test_transcripts_are_cached_per_voice(monkeypatch, domain_lm):
    """Another voice is other audio: its transcripts are computed, never read from the first voice's."""
    recognised: list[int] = []
    first = fresh(tts="espeak", voice="en-us", asr="pocketsphinx", lm=domain_lm)
    recogniser = type(first.runtime().recogniser)
    original = recogniser.recognise
    monkeypatch.setattr(recogniser, "recognise", lambda self, clips: recognised.append(len(clips)) or original(self, clips))
    first.augment(QUESTIONS)
    assert sum(recognised) == len(QUESTIONS)
    other_voice = fresh(tts="espeak", voice="en-gb", asr="pocketsphinx", lm=domain_lm)
    assert other_voice.runtime().caches().transcripts.path != first.runtime().caches().transcripts.path
    other_voice.augment(QUESTIONS)
    assert sum(recognised) == 2 * len(QUESTIONS)
    fresh(tts="espeak", voice="en-us", asr="pocketsphinx", lm=domain_lm).augment(QUESTIONS)
    assert sum(recognised) == 2 * len(QUESTIONS)  # the first voice again: from its cache


def test_the_device_and_batch_size_do_not_key_the_transcript_cache():
    folder = str(tiny_model("whisper-hf"))
    runtimes = [fresh(tts="espeak", asr="hf-whisper", asr_model=folder, batch_size=n).runtime() for n in (1, 4)]
    assert runtimes[0].caches().transcripts.path == runtimes[1].caches().transcripts.path
    fingerprint = runtimes[0].recogniser.fingerprint()
    assert "device" not in fingerprint and "batch_size" not in json.dumps(fingerprint)
    assert runtimes[0].recogniser.provenance() == {**fingerprint, "device": "cpu"}


def test_prepare_computes_everything_before_apply(monkeypatch, domain_lm):
    model = fresh(tts="espeak", asr="pocketsphinx", lm=domain_lm)
    ids = [str(i) for i in range(len(QUESTIONS))]
    prepare_steps(model, model_input(model, QUESTIONS, 0, ids, "text"), 0, "text", progress=False)
    monkeypatch.setattr(type(model.runtime().recogniser), "recognise", lambda *a: pytest.fail("not prepared"))
    assert len(model(QUESTIONS)) == len(QUESTIONS)


def test_gtts_without_network_is_a_clear_error(monkeypatch):
    from gtts import gTTS
    from gtts.tts import gTTSError

    def offline(self, fp):
        raise gTTSError("Failed to connect. Probable cause: Host 'https://translate.google.co.uk/' is not reachable")

    monkeypatch.setattr(gTTS, "write_to_fp", offline)
    model = fresh(tts="gtts", voice="co.uk", asr="pocketsphinx")  # made without network: nothing is fetched yet
    with pytest.raises(ConfigError, match="tts=espeak"):
        model(["What is the capital city of France?"])


def test_gtts_mp3_is_decoded_and_recognised(monkeypatch, domain_lm):
    """gTTS's MP3 path, with the network answer replaced by an MP3 of espeak speech."""
    import soundfile
    from gtts import gTTS

    def speak(self, fp):
        clip = espeak_speaker().speak(self.text, "en-gb", None, 175)
        soundfile.write(fp, clip, espeak_library().sample_rate, format="MP3")

    monkeypatch.setattr(gTTS, "write_to_fp", speak)
    model = fresh(tts="gtts", voice="co.uk", asr="pocketsphinx", lm=domain_lm)
    [noised] = model(["What is the capital city of France?"])
    assert "capital" in noised.text
    assert model.provenance()["tts"] | {"libraries": None} == {
        "engine": "gtts", "libraries": None, "lang": "en", "tld": "co.uk", "sample_rate": 16000,
        "resampler": "fft-bandlimited-v1"}


@pytest.mark.parametrize(("params", "message"), [
    ({"tts": "espeak", "asr": "pocketsphinx", "lang": "de"}, "only an English"),
    ({"tts": "gtts", "variant": "f3", "asr": "pocketsphinx"}, "no voice variants"),
    ({"tts": "espeak", "voice": "en-xx", "asr": "pocketsphinx"}, "voices for en: .*en-gb-scotland"),
    ({"tts": "espeak", "voice": "de", "asr": "pocketsphinx"}, "does not speak 'en'"),
    ({"tts": "espeak", "variant": "f99", "asr": "pocketsphinx"}, "no variant 'f99'"),
    ({"tts": "espeak", "asr": "whisper", "asr_model": "no-such-size"}, "not a model size"),
    ({"tts": "espeak", "asr": "whisper", "asr_model": "base.en", "lang": "de"}, "English-only"),
    ({"tts": "espeak", "asr": "whisper", "lm": "x.arpa"}, "takes none"),
    ({"tts": "espeak", "asr": "whisper", "revision": "main"}, "no revision"),
    ({"tts": "espeak", "asr": "hf-whisper", "asr_model": "openai/whisper-base"}, "cannot be reached|not in the local"),
    ({"tts": "espeak", "lang": "xx", "asr": "pocketsphinx"}, "no espeak-ng voice is set up for 'xx'"),
])
def test_what_cannot_be_done_fails_when_the_spec_is_made(params, message):
    with pytest.raises(ConfigError, match=message):
        SpeechInterfaceNoise(**params)


def test_text_form_round_trip_and_shareable_params():
    checkpoint = str(tiny_model("whisper-openai") / "model.pt")
    model = parse_noise(f"asr(tts=espeak, variant=f3, asr=whisper, asr_model='{checkpoint}')", lang="en")
    again = parse_noise(format_noise(model), lang="en")
    assert again.params() == model.params() and again.digest() == model.digest()
    shared = json.loads(model.params_json)
    assert shared["asr_model"] == "model.pt" and shared["voice"] == "en-us" and shared["rate"] == 175
    assert "/" not in json.dumps(model.provenance())  # cards are shared: no local paths


def test_normalised_scores_ignore_case_and_punctuation():
    assert without_case_and_punctuation("What's the  Capital, of France?") == "whats the capital of france"
    assert normalised_scores(["What is the capital of France?"], ["what is the capital of france"]) == {
        "cer": 0.0, "wer": 0.0, "bleu": 100.0}


def test_build_keeps_provenance_and_replayable_edits(tmp_path, domain_lm):
    repo = DatasetRepo(tmp_path / "out", "1.0.0")
    built = build_config(repo, ConfigRequest(source="demo", noise=f"asr(tts=espeak, asr=pocketsphinx, lm='{domain_lm}')",
                                             fields=("question",)), progress=False)
    write_card(repo)
    rows = pq.read_table(built.path).to_pylist()
    assert rows and all(r["noise_name"] == "asr" for r in rows)
    for row in rows:
        edits = [e for e in row["noise_edits"] if e["field"] == "question"]
        assert apply_edits(row["original_question"], [Edit(**{k: e[k] for k in Edit._fields}) for e in edits]) == row["question"]
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "pocketsphinx" in card and "espeak-ng" in card and str(tmp_path) not in card


def test_a_pocketsphinx_transcript_does_not_depend_on_the_clips_decoded_before_it(tmp_path, monkeypatch):
    from noisecraft.noise_models.speech_asr import PocketsphinxRecogniser

    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path))
    rhine, book = parse_noise("asr(tts=espeak, asr=pocketsphinx)", lang="en").runtime().audio(
        ["How long is the Rhine?", "Who wrote the book?"])
    alone = PocketsphinxRecogniser.resolve(None, "en").recognise([rhine])
    after = PocketsphinxRecogniser.resolve(None, "en").recognise([book, rhine])  # as on another actor, or a warm cache
    assert after[1] == alone[0]  # the decoder's noise and feature state once carried over ('what is that right')
