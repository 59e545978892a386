"""Translation noise: the per-example loop (one ``generate`` per question, as the NoiseQA scripts do)
against the batched runtime (length-bucketed batches under a token budget), on the 1,190 XQuAD-en
questions, and a rebuild served from the on-disk cache.

No model can be downloaded on the build machines, so the benchmark builds a model with the size and
shape of ``Helsinki-NLP/opus-mt-en-de`` (Marian, d_model 512, 6+6 layers, 8 heads, FFN 2048, 58,101
entries in the vocabulary) with random weights and a SentencePiece vocabulary trained on XQuAD, so
that questions segment into about as many tokens as with the real model. Random weights never emit
end-of-sentence, so every output is forced to ``--new-tokens`` tokens (``min_new_tokens`` =
``max_new_tokens``), the same in both paths: the work per question is what a real round trip costs
for outputs of that length. Quality figures (CER/WER/BLEU) need the real weights: see the README.

Usage: python benchmarks/mt_throughput.py [--corpora ../shared/corpora/xquad] [--loop-sample 60]
       [--num-beams 4] [--new-tokens 24] [--device auto]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
import time
from pathlib import Path

DEFAULT_CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "xquad"
OPUS_MT_VOCAB = 58101


def xquad_text(path: Path) -> tuple[list[str], list[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    paragraphs = [p for a in data["data"] for p in a["paragraphs"]]
    return [q["question"] for p in paragraphs for q in p["qas"]], [p["context"] for p in paragraphs]


def build_opus_mt_sized(folder: Path, sentences: list[str]) -> None:
    """A Marian model shaped like opus-mt-en-de, random weights, a vocabulary trained on ``sentences``."""
    import sentencepiece as spm
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(sentences), model_writer=buffer, vocab_size=6000,
                                   model_type="unigram", bos_id=-1, eos_id=-1, unk_id=0, minloglevel=2)
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes(buffer.getvalue())
    processor = spm.SentencePieceProcessor(model_proto=buffer.getvalue())
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(processor.get_piece_size()):
        vocab.setdefault(processor.id_to_piece(i), len(vocab))
    while len(vocab) < OPUS_MT_VOCAB - 1:  # the real vocabulary's size: the output layer costs as much
        vocab[f"<extra_{len(vocab)}>"] = len(vocab)
    vocab["<pad>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    MarianTokenizer(source_spm=str(folder / "source.spm"), target_spm=str(folder / "target.spm"),
                    vocab=str(folder / "vocab.json")).save_pretrained(folder)
    size = len(vocab)
    config = MarianConfig(vocab_size=size, d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                          decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048,
                          max_position_embeddings=512, pad_token_id=size - 1, decoder_start_token_id=size - 1,
                          eos_token_id=0, forced_eos_token_id=0)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        MarianMTModel(config).save_pretrained(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--loop-sample", type=int, default=60, help="questions timed one at a time (extrapolated)")
    parser.add_argument("--num-beams", type=int, default=4)
    parser.add_argument("--new-tokens", type=int, default=24)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = Path(tempfile.mkdtemp(prefix="mt-bench-"))
    os.environ["NOISECRAFT_CACHE"] = str(work / "cache")

    import torch
    from results_page import publish
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    from noisecraft.runtime import load_pretrained, pick_placement, resolve_model
    from noisecraft.runtime.seq2seq import DecodeSettings, Seq2SeqGenerator

    questions, contexts = xquad_text(args.corpora / "xquad.en.json")
    folder = work / "opus-mt-sized"
    folder.mkdir()
    build_opus_mt_sized(folder, questions + contexts)
    ref = resolve_model(str(folder))
    placement = pick_placement(args.device, "auto")
    generator = Seq2SeqGenerator(ref, placement, DecodeSettings(args.num_beams, args.new_tokens), token_budget=16384)
    tokenizer = load_pretrained(AutoTokenizer, ref)
    model = load_pretrained(AutoModelForSeq2SeqLM, ref, placement)
    model.generation_config.min_new_tokens = args.new_tokens  # random weights: force the output length
    tokens = [len(ids) for ids in tokenizer(questions)["input_ids"]]
    setting = (f"{len(questions)} questions, {sum(tokens) / len(tokens):.1f} source tokens on average; device "
               f"{placement.device}, {placement.dtype}; beams {args.num_beams}; {args.new_tokens} tokens out; torch "
               f"threads {torch.get_num_threads()}")
    print(setting)

    def sync() -> None:
        if placement.kind == "cuda":
            torch.cuda.synchronize()

    sample = questions[: args.loop_sample]
    options = {"num_beams": args.num_beams, "max_new_tokens": args.new_tokens, "do_sample": False}
    with torch.inference_mode():  # warm-up
        model.generate(**tokenizer(sample[:2], return_tensors="pt", padding=True).to(placement.device), **options)
    sync()
    start = time.perf_counter()
    with torch.inference_mode():
        for question in sample:
            encoded = tokenizer([question], return_tensors="pt").to(placement.device)
            tokenizer.batch_decode(model.generate(**encoded, **options), skip_special_tokens=True)
    sync()
    per_question = (time.perf_counter() - start) / len(sample)
    loop_round_trip = per_question * 2 * len(questions)

    start = time.perf_counter()
    pivots = generator.generate(questions, progress=False)
    sync()
    forward = time.perf_counter() - start
    start = time.perf_counter()
    generator.generate([p for p in pivots if p is not None], progress=False)  # same model back: same cost
    sync()
    batched = forward + (time.perf_counter() - start)
    start = time.perf_counter()
    generator.generate(questions, progress=False)
    cached = time.perf_counter() - start

    rows = [
        [f"per-example loop (measured on {len(sample)}, extrapolated)", f"{per_question:.3f}",
         f"{loop_round_trip:.1f}", "1.0x"],
        ["batched runtime (all 1190, both directions)", f"{batched / (2 * len(questions)):.4f}", f"{batched:.1f}",
         f"{loop_round_trip / batched:.1f}x"],
        ["rebuild from the cache (one direction)", f"{cached / len(questions):.5f}", f"{cached:.2f}", "-"],
    ]
    print(publish("mt_throughput", ["path", "s per generation", "s per round trip of XQuAD-en", "speed-up"], rows,
                  notes=f"A model of opus-mt-en-de's size and shape with random weights, every output forced to "
                        f"{args.new_tokens} tokens; {setting}."))


if __name__ == "__main__":
    main()
