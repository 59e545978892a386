"""Real, offline speech-interface noise end to end: espeak-ng -> pocketsphinx on the 1,190 XQuAD-en questions.

The recogniser is pocketsphinx's bundled en-US acoustic model with a *domain* language model: a trigram
model of the 240 XQuAD-en context paragraphs (the questions themselves are never seen by the LM), its
words looked up in the bundled CMU dictionary. ``--generic N`` also runs the bundled generic LM on the
first N questions (it decodes at about real time on 2 cores, so the whole set would take ~30 minutes).

Prints seconds (synthesis and recognition separately, from empty caches), CER/WER/BLEU raw (as the
card shows them) and with case and punctuation removed (as NoiseQA reports them), and the share of
questions changed.

Usage: python benchmarks/speech_pocketsphinx.py [--corpora ../shared/corpora/xquad] [--generic 50]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from results_page import publish

from noisecraft.core.stats import field_scores, normalised_scores
from noisecraft.noise_models.base import model_input, prepare_steps
from noisecraft.noise_models.speech import SpeechInterfaceNoise
from noisecraft.noise_models.speech_asr import write_domain_lm

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "xquad"


def xquad_en(folder: Path) -> tuple[list[str], list[str]]:
    """The questions and the context paragraphs of XQuAD-en."""
    data = json.loads((folder / "xquad.en.json").read_text(encoding="utf-8"))
    paragraphs = [p for article in data["data"] for p in article["paragraphs"]]
    return [q["question"] for p in paragraphs for q in p["qas"]], [p["context"] for p in paragraphs]


def run(model: SpeechInterfaceNoise, questions: list[str]) -> tuple[float, float, list[str]]:
    """Seconds to synthesise every question, seconds to recognise them, and the transcripts."""
    runtime = model.runtime()
    start = time.perf_counter()
    runtime.audio(questions)  # fills the audio cache
    synthesis = time.perf_counter() - start
    start = time.perf_counter()
    # audio from the cache: recognition only
    prepare_steps(model, model_input(model, questions, 0, [str(i) for i in range(len(questions))], "question"), 0,
                          "question", progress=False)
    recognition = time.perf_counter() - start
    return synthesis, recognition, [n.text for n in model(questions)]


def row(name: str, questions: list[str], seconds: tuple[float, float], transcripts: list[str]) -> tuple:
    raw, normalised = field_scores(questions, transcripts), normalised_scores(questions, transcripts)
    changed = sum(q != t for q, t in zip(questions, transcripts)) / len(questions)
    return (name, len(questions), f"{seconds[0]:.1f}", f"{seconds[1]:.1f}", f"{raw['cer']:.2f}", f"{raw['wer']:.2f}",
            f"{raw['bleu']:.2f}", f"{normalised['cer']:.2f}", f"{normalised['wer']:.2f}", f"{normalised['bleu']:.2f}",
            f"{100 * changed:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--generic", type=int, default=0, help="also run the generic LM on the first N questions")
    args = parser.parse_args()
    questions, contexts = xquad_en(args.corpora)
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["NOISECRAFT_CACHE"] = scratch  # empty caches: everything is computed
        lm = str(write_domain_lm(contexts, Path(scratch) / "xquad-en-contexts.arpa"))
        rows = []
        model = SpeechInterfaceNoise(tts="espeak", asr="pocketsphinx", lm=lm)
        synthesis, recognition, transcripts = run(model, questions)
        rows.append(row("domain LM (XQuAD-en contexts)", questions, (synthesis, recognition), transcripts))
        examples = list(zip(questions[:5], transcripts[:5]))
        if args.generic:
            sample = questions[: args.generic]
            generic = SpeechInterfaceNoise(tts="espeak", asr="pocketsphinx")
            *seconds, texts = run(generic, sample)
            rows.append(row("generic en-US LM", sample, tuple(seconds), texts))
    print(publish(
        "speech_pocketsphinx", ("recogniser", "questions", "TTS s", "ASR s", "CER", "WER", "BLEU", "CER norm", "WER norm",
                        "BLEU norm", "changed %"), rows, markdown=True))
    for question, transcript in examples:
        print(f"  {question!r} -> {transcript!r}")


if __name__ == "__main__":
    main()
