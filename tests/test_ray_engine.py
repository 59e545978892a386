"""The Ray engine (noisecraft.building.executors): a Ray build or mining run gives the same bytes / dictionary as a local
one, a worker killed mid-run costs a retry and no result, and the engine's errors are one line.

Ray runs as a local cluster started once for this module (``ray.init(num_cpus=2)``); the tests stay few because
each Ray task costs milliseconds and the cluster ~10 s to start.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import noisecraft as nc
from noisecraft.building.executors import RayExecutor, make_executor, num_proc_of
from noisecraft.errors import ConfigError, InputError
from noisecraft.mining.registry import mine
from noisecraft.mining.wikiedits import WikiEditMiner, dictionary_rows, mine_dumps
from noisecraft.runtime.device import Accelerator, Placement, pick_placement

from conftest import corpus

#: Files of the shared real corpora, looked up by the tests that read them (the others run without the corpora).
XQUAD_EN = "xquad/xquad.en.json"
DUMPS = ["mediawiki/enwiki-20140102.tiny.xml.gz", "mediawiki/hiwiki_main_page_13revs.xml",
         "mediawiki/pywikibot_article-pyrus.xml.bz2"]
TWEETS = ["sentiment140/testdata.manual.2009.06.14.csv",
          "sentiment140/training.1600000.processed.noemoticon.head10k_tail10k.csv"]
LEXICON = ["opinion_lexicon/positive-words.txt", "opinion_lexicon/negative-words.txt"]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_ray_build_is_byte_identical_to_a_local_build(ray_cluster, tmp_path):
    options = dict(data_file=corpus(XQUAD_EN), seed=3, noise=["keyboard@1", "swap"], progress=False)
    nc.build("xquad", out=tmp_path / "local", batch_size=97, **options)
    nc.build("xquad", out=tmp_path / "ray", batch_size=97, engine="ray", **options)  # 13 batches per config as tasks
    local, remote = _files(tmp_path / "local"), _files(tmp_path / "ray")
    assert sum(name.endswith(".parquet") for name in local) == 2
    assert local == remote  # parquet shards, manifest and card


def test_a_recipe_builds_the_same_on_ray(ray_cluster, tmp_path):
    recipe = tmp_path / "tiny.toml"
    recipe.write_text('name = "tiny"\nversion = "1.0.0"\ndescription = "two configs"\n\n[[configs]]\nsource = "xquad"\n'
                      'langs = ["en"]\nsplit = "validation"\nfields = ["question"]\ndata_file = "xquad.{lang}.json"\n'
                      'seeds = [0, 1]\nnoise = [{ name = "keyboard", rate = 0.1 }]\n', encoding="utf-8")
    options = dict(data_dir=corpus(XQUAD_EN).parent, batch_size=500, progress=False)
    nc.build_recipe(recipe, tmp_path / "local", **options)
    nc.build_recipe(recipe, tmp_path / "ray", engine="ray", **options)
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")


def test_ray_mining_gives_the_local_dictionary_and_resumes_from_checkpoints(ray_cluster, tmp_path, monkeypatch):
    dumps, tweets, lexicon = ([corpus(name) for name in names] for names in (DUMPS, TWEETS, LEXICON))
    miner = WikiEditMiner("en")
    local, _ = mine_dumps(miner, dumps, tmp_path / "local", progress=False)
    remote, run = mine_dumps(miner, dumps, tmp_path / "ray", progress=False, engine="ray")
    assert run["files_resumed"] == 0 and dictionary_rows("en", remote) == dictionary_rows("en", local)
    (tmp_path / "ray" / sorted(os.listdir(tmp_path / "ray"))[0]).unlink()  # as if interrupted before that file
    again, run = mine_dumps(miner, dumps, tmp_path / "ray", progress=False, engine="ray")
    assert run["files_resumed"] == 2 and dictionary_rows("en", again) == dictionary_rows("en", local)

    local_dict, _ = mine("reduplication", tweets, tmp_path / "r-local", lang="en", lexicon_files=lexicon)
    ray_dict, _ = mine("reduplication", tweets, tmp_path / "r-ray", lang="en", lexicon_files=lexicon, engine="ray")
    assert ray_dict.rows == local_dict.rows and len(ray_dict.rows) > 50
    assert {k: v for k, v in ray_dict.stats.items() if k != "seconds"} == \
           {k: v for k, v in local_dict.stats.items() if k != "seconds"}


def test_model_outputs_come_from_ray_model_actors_into_the_cache_a_local_rebuild_reads(ray_cluster, tmp_path,
                                                                                     monkeypatch):
    from noisecraft.runtime.heads import Head

    from tiny_models import tiny_model

    spec = f"replace-entity(tagger={tiny_model('ner-tagger')})"
    options = dict(noise=spec, progress=False)  # the 41-row demo sample: Ray runs the model, the one batch runs here
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-local"))
    nc.build("demo", out=tmp_path / "local", **options)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-ray"))
    monkeypatch.setattr(Head, "_compute", lambda *a, **k: pytest.fail("the driver ran the model"))
    nc.build("demo", out=tmp_path / "ray", engine="ray", **options)  # the actors' processes run the real _compute
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")
    nc.build("demo", out=tmp_path / "again", **options)  # local, still without a model: served from the cache
    assert _files(tmp_path / "again") == _files(tmp_path / "local")


def test_translation_runs_on_ray_model_actors_into_the_cache_a_local_rebuild_reads(ray_cluster, tmp_path, monkeypatch):
    from noisecraft.runtime.seq2seq import Seq2SeqGenerator

    from tiny_models import tiny_model

    # the budget makes 6 batches of the demo's questions and 4 of their German, each one chunk on an actor
    spec = (f"translation(forward_model={tiny_model('marian-en-de')},backward_model={tiny_model('marian-de-en')},"
            "max_new_tokens=12,token_budget=1600)")
    options = dict(noise=spec, progress=False)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-local"))
    nc.build("demo", out=tmp_path / "local", **options)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-ray"))
    # the driver forms the batches with the tokenizer alone; the weights load only in the actors' processes
    monkeypatch.setattr(Seq2SeqGenerator, "_model", lambda *a, **k: pytest.fail("the driver loaded the model"))
    shipped: list[int] = []
    map_chunks = RayExecutor.map_chunks

    def counted(executor, function, chunks):
        shipped.append(len(chunks))
        yield from map_chunks(executor, function, chunks)

    monkeypatch.setattr(RayExecutor, "map_chunks", counted)
    nc.build("demo", out=tmp_path / "ray", engine="ray", **options)
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")
    assert len(shipped) == 2 and min(shipped) > 1  # forward and backward, each in several batches
    monkeypatch.setattr(Seq2SeqGenerator, "_compute", lambda *a, **k: pytest.fail("the local rebuild computed"))
    nc.build("demo", out=tmp_path / "again", **options)  # local, served from the cache the Ray run wrote
    assert _files(tmp_path / "again") == _files(tmp_path / "local")


def test_whisper_recognises_on_ray_model_actors_into_the_cache_a_local_rebuild_reads(ray_cluster, tmp_path,
                                                                                   monkeypatch):
    from noisecraft.noise_models.speech import SpeechRuntime
    from noisecraft.runtime.whisper import TransformersWhisperRecogniser

    from tiny_models import tiny_model

    # espeak speaks the demo's questions here; batches of 8 clips go to the actors running the tiny Whisper
    options = dict(noise=f"asr(tts=espeak,asr=hf-whisper,asr_model={tiny_model('whisper-hf')},batch_size=8)",
                   progress=False)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-local"))
    nc.build("demo", out=tmp_path / "local", **options)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-ray"))
    monkeypatch.setattr(TransformersWhisperRecogniser, "recognise", lambda *a: pytest.fail("the driver recognised"))
    nc.build("demo", out=tmp_path / "ray", engine="ray", **options)
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")
    monkeypatch.setattr(SpeechRuntime, "_recognise", lambda *a: pytest.fail("the local rebuild recognised"))
    nc.build("demo", out=tmp_path / "again", **options)  # local, served from the cache the Ray run wrote
    assert _files(tmp_path / "again") == _files(tmp_path / "local")


def test_pocketsphinx_on_ray_actors_is_byte_identical_and_an_actor_without_the_audio_cache_says_so(
        ray_cluster, tmp_path, monkeypatch):
    import noisecraft.building.executors as executors
    from noisecraft.noise_models.registry import parse_noise
    from noisecraft.noise_models.speech_asr import write_domain_lm
    from noisecraft.runtime.offload import running_chunks_with

    from tiny_models import CORPUS_EN

    lm = write_domain_lm(CORPUS_EN, tmp_path / "questions.arpa")  # not the demo's questions: transcripts keep errors
    options = dict(noise=f"asr(tts=espeak,asr=pocketsphinx,lm={lm})", progress=False)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-local"))
    nc.build("demo", out=tmp_path / "local", **options)
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-ray"))
    nc.build("demo", out=tmp_path / "ray", engine="ray", **options)  # two actors, each decoding part of the clips
    assert _files(tmp_path / "local") == _files(tmp_path / "ray")
    # a cluster whose nodes do not share the driver's cache: the actors see an empty folder and never re-synthesise
    monkeypatch.setenv("NOISECRAFT_CACHE", str(tmp_path / "cache-driver"))
    environment = executors.driver_environment
    monkeypatch.setattr(executors, "driver_environment",
                        lambda: {**environment(), "NOISECRAFT_CACHE": str(tmp_path / "cache-node")})
    runtime = parse_noise(options["noise"], lang="en").runtime()
    with RayExecutor() as executor, running_chunks_with(executor.map_chunks), pytest.raises(ConfigError) as raised:
        runtime.transcribe(["Who wrote the book?"], progress=False)
    assert f"1 clip(s) of its batch missing from the audio cache at {tmp_path / 'cache-node'}: set NOISECRAFT_CACHE " \
           "to a path shared by the driver and every node of the Ray cluster" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_auto_placement_is_resolved_for_the_cluster_actors_in_every_process_of_a_build(ray_cluster, monkeypatch):
    import noisecraft.building.executors as executors
    from noisecraft.noise_models.registry import parse_noise

    from tiny_models import tiny_model

    gpu = Accelerator(cuda=True, bf16=True, torch="2.13.0")

    def probe(environment: dict[str, str]) -> str:  # stands in for the actor-shaped probe task on a GPU node
        return gpu.to_text()

    def placement_in_a_task(_: int) -> Placement:  # defined here: Ray ships it by value
        return pick_placement("auto", "auto")

    monkeypatch.setattr(executors, "_probe", probe)
    assert pick_placement() == Placement("cpu", "float32")  # this driver has no GPU
    spec = parse_noise("translation(forward_model={m},backward_model={m})".format(m=tiny_model("marian-en-de")))
    assert spec.provenance()["forward"]["device"] == "cpu"  # made (and loaded) before the build, for this machine
    with RayExecutor() as executor:
        assert pick_placement() == Placement("cuda", "bfloat16")  # for the actors, not for the driver
        assert pick_placement("cuda:0", "float16") == Placement("cuda:0", "float16")  # explicit, the actors have it
        assert list(executor.imap(placement_in_a_task, [0, 1])) == [Placement("cuda", "bfloat16")] * 2  # tasks too
        assert spec.provenance()["forward"]["device"] == "cuda"  # in the build: the actors' device, on the card too
        assert spec.provenance()["forward"]["dtype"] == "bfloat16"
    assert pick_placement() == Placement("cpu", "float32")  # the scope ends with the executor
    assert spec.provenance()["forward"]["device"] == "cpu"
    monkeypatch.undo()
    with RayExecutor():  # the real probe: the actors of this cluster have no GPU
        with pytest.raises(ConfigError, match="device 'cuda' was asked for, but torch on the cluster's model actors "
                                              "sees no CUDA GPU"):
            pick_placement("cuda", "auto")


def test_a_model_actor_whose_torch_differs_from_the_resolved_placement_refuses(ray_cluster, monkeypatch):
    from noisecraft.runtime.device import ACCELERATOR_VARIABLE

    # the driver resolved its models for GPU actors; this cluster's actors see a CPU only
    monkeypatch.setenv(ACCELERATOR_VARIABLE, Accelerator(cuda=True, bf16=True, torch="2.13.0").to_text())
    with RayExecutor() as executor, pytest.raises(ConfigError) as raised:
        list(executor.map_chunks(len, [[1], [2, 3]]))
    assert "sees cpu only" in str(raised.value) and "resolved its models for cuda (bf16)" in str(raised.value)
    assert "\n" not in str(raised.value)


def test_model_actors_serve_every_call_until_the_batches_start_and_a_dead_one_is_retried(ray_cluster, tmp_path):
    marker = tmp_path / "killed-once"

    def square_or_die(chunk: list[int]) -> list[int]:  # defined here: Ray ships it by value
        if 5 in chunk and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the actor's process dies mid-chunk
        return [x * x for x in chunk]

    def actor_pid(chunk: list[int]) -> list[int]:
        return [os.getpid()] * len(chunk)

    chunks = [[k, k + 100] for k in range(8)]
    with RayExecutor() as executor:
        first = {pid for _, pids in executor.map_chunks(actor_pid, chunks) for pid in pids}
        squares = dict(executor.map_chunks(square_or_die, chunks))
        assert squares == {k: [k * k, (k + 100) ** 2] for k in range(8)}  # every chunk once, the killed one retried
        assert marker.exists()
        again = {pid for _, pids in executor.map_chunks(actor_pid, chunks) for pid in pids}
        assert len(first) == 2 and int(marker.read_text()) in first  # two actors (two CPUs), one of them killed
        assert len(first & again) == 1  # the survivor still serves; the killed one was restarted in a new process
        assert list(executor.imap(abs, [-1, 2])) == [1, 2]  # the batches' tasks get the CPUs the actors held
        after = {pid for _, pids in executor.map_chunks(actor_pid, chunks) for pid in pids}
        assert not after & again  # released at the batches: new actors


def test_a_killed_worker_is_retried_and_results_stay_in_order(ray_cluster, tmp_path):
    marker = tmp_path / "killed-once"

    def square_or_die(x: int) -> int:  # defined here: Ray ships it by value
        if x == 5 and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)  # the worker process dies mid-run, as a lost node or the OOM killer would do it
        return x * x

    with RayExecutor() as executor:
        assert list(executor.imap(square_or_die, range(12), in_flight=3)) == [x * x for x in range(12)]
    assert marker.exists()  # the task really ran in a process that died


def test_the_functions_own_error_is_not_retried_and_stays_one_line(ray_cluster, tmp_path):
    calls = tmp_path / "calls"
    calls.mkdir()

    def check(x: int) -> int:
        (calls / f"{x}-{os.getpid()}-{len(os.listdir(calls))}").touch()
        if x == 2:
            raise InputError(Path("tweets.csv"), "broken quoting", f"line {x}")
        return x

    with RayExecutor() as executor, pytest.raises(InputError) as raised:
        list(executor.imap(check, range(4), in_flight=1))
    assert str(raised.value) == "tweets.csv, line 2: broken quoting"  # the original error, no Ray traceback
    assert sum(name.startswith("2-") for name in os.listdir(calls)) == 1  # bad input is not retried


def test_engine_errors_are_one_line(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match="unknown engine 'spark'; available: local, ray"):
        nc.build("demo", out=tmp_path / "a", engine="spark")
    with pytest.raises(ConfigError, match="applies to --engine ray"):
        make_executor("local", 1, "auto")
    monkeypatch.setitem(sys.modules, "ray", None)  # as if the extra were not installed
    with pytest.raises(ConfigError, match=r"pip install 'noisecraft\[ray\]'"):
        nc.build("demo", out=tmp_path / "b", engine="ray")
    assert not (tmp_path / "b").exists()  # refused before anything was written


def test_the_cli_gives_a_ray_started_here_every_cpu_unless_num_proc_is_given(monkeypatch, tmp_path):
    from noisecraft import cli

    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    build = ["build", "--source", "demo", "--out", str(tmp_path)]
    wiki = ["mine", "wikiedits", "dump.xml", "--lang", "en", "--out", str(tmp_path)]
    cases = {(): 1, ("--engine", "ray"): 7, ("--engine", "ray", "--num-proc", "2"): 2,
             ("--engine", "ray", "--ray-address", "auto"): 1, ("--num-proc", "3"): 3}
    for command in (build, wiki):
        for extra, want in cases.items():
            assert num_proc_of(cli._parser().parse_args(command + list(extra))) == want, (command[0], extra)
