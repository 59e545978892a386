"""Whisper decoding of XQuAD-en questions one at a time vs in length-sorted batches (asr@1, openai-whisper).

The model is a *random* Whisper built here with openai-whisper's ``ModelDimensions``: ``--size base`` has the
layer sizes of Whisper base (74 M parameters), ``--size tiny-random`` is a 3.5 M-parameter toy. Its text context
is cut to 48 positions, so every question decodes exactly 24 tokens (whisper's default ``sample_len`` is half
the context): a real model stops at its end token after ~15-25 tokens for a question, a random one never does.
Audio is synthesised once by espeak-ng (excluded from the timings); then the questions are transcribed through
``asr@1``'s own path (``prepare``: cache lookups, length-sorted batches, each clip padded to a 30 s window), once
with ``batch_size=1`` and once with ``--batch``; the share of identical transcripts is printed.

Usage: python benchmarks/speech_whisper_batching.py [--sample 64] [--batch 64] [--size base] [--device auto]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from results_page import publish

from noisecraft.noise_models.base import model_input, prepare_steps
from noisecraft.noise_models.speech import SpeechInterfaceNoise

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "xquad"
SIZES = {  # (audio/text state, heads, layers)
    "base": (512, 8, 6),
    "tiny-random": (64, 2, 1),
}


def random_whisper(path: Path, size: str) -> Path:
    """A random openai-whisper checkpoint of the given layer sizes (text context 48: 24 decoded tokens)."""
    import torch
    from whisper.model import ModelDimensions, Whisper

    state, heads, layers = SIZES[size]
    dims = ModelDimensions(n_mels=80, n_audio_ctx=1500, n_audio_state=state, n_audio_head=heads, n_audio_layer=layers,
                           n_vocab=51865, n_text_ctx=48, n_text_state=state, n_text_head=heads, n_text_layer=layers)
    torch.manual_seed(0)
    model = Whisper(dims)
    with torch.no_grad():
        model.decoder.positional_embedding.normal_(0, 0.02)  # torch.empty() in whisper
    torch.save({"dims": dims.__dict__, "model_state_dict": model.state_dict()}, path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--sample", type=int, default=64, help="first N questions (1190: all)")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--size", choices=sorted(SIZES), default="base")
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    data = json.loads((args.corpora / "xquad.en.json").read_text(encoding="utf-8"))
    questions = [q["question"] for a in data["data"] for p in a["paragraphs"] for q in p["qas"]][: args.sample]
    with tempfile.TemporaryDirectory() as scratch:
        checkpoint = str(random_whisper(Path(scratch) / f"whisper-{args.size}.pt", args.size))
        rows, outputs = [], []
        for batch in (1, args.batch):
            # a cache of its own per run: the transcripts do not depend on the batch, so a shared cache would serve
            # the second run without decoding anything
            os.environ["NOISECRAFT_CACHE"] = str(Path(scratch) / f"cache-batch-{batch}")
            model = SpeechInterfaceNoise(tts="espeak", asr="whisper", asr_model=checkpoint, batch_size=batch,
                                         device=args.device)
            model.runtime().audio(questions)  # synthesised once (cached), not timed
            model.runtime().recogniser.recognise(model.runtime().audio(questions[:1]))  # load the weights, warm up
            start = time.perf_counter()
            prepare_steps(model, model_input(model, questions, 0, [str(i) for i in range(len(questions))], "question"), 0,
                          "question", progress=False)
            seconds = time.perf_counter() - start
            outputs.append(model.augment(questions))
            placement = model.runtime().recogniser.placement
            rows.append((args.size, placement.device, placement.dtype, len(questions), batch, f"{seconds:.2f}",
                         f"{seconds / len(questions):.3f}"))
    print(publish(
        "speech_whisper_batching", ("model", "device", "dtype", "questions", "batch", "seconds", "s/question"), rows,
        markdown=True))
    same = sum(a == b for a, b in zip(*outputs))
    print(f"speed-up {float(rows[0][5]) / float(rows[1][5]):.1f}x; identical transcripts {same}/{len(questions)} "
          "(GPU arithmetic is not bitwise stable across batch shapes; on CPU they agree)")


if __name__ == "__main__":
    main()
