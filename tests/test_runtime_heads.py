"""The one model layer (noisecraft.runtime.heads): probabilities, embeddings and gradient importance on tiny
models, checked against direct computations with torch; fingerprint rules; batching by content."""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

from noisecraft.runtime import postprocess
from noisecraft.runtime.heads import Embeddings, Head, Importance, Probabilities, load_head
from tests.tiny_models import ONE_WORD, tiny_model

from conftest import OnFirstUse

# checked and imported without paying torch's import (seconds) when the suite is only collected
pytestmark = pytest.mark.skipif(any(importlib.util.find_spec(m) is None for m in ("torch", "transformers")),
                                reason="torch and transformers are not installed")


torch: Any = OnFirstUse("torch")
transformers: Any = OnFirstUse("transformers")

PAIRS = [("the river flows", "a city of rivers"), ("who wrote the novel", "what is the capital"),
         ("how many people", "live in the city")]
TEXTS = ["the river flows through the capital", "what year did the war end", "who wrote the novel pride",
         "where was the first university founded", "why did the company change its name", "when"]


def _direct(folder, texts, seconds=None, auto="AutoModelForSequenceClassification"):
    """Model outputs computed one input at a time, without the runtime."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = getattr(transformers, auto).from_pretrained(folder).eval()
    outputs = []
    for i, text in enumerate(texts):
        encoded = tokenizer(text, seconds[i] if seconds else None, truncation=True, max_length=128, return_tensors="pt")
        with torch.no_grad():
            outputs.append((model(**encoded), encoded))
    return outputs


def test_probabilities_match_a_direct_forward_and_do_not_depend_on_the_budget():
    folder = tiny_model("cls-mrpc")
    expected = [torch.softmax(out.logits[0], -1).tolist() for out, _ in _direct(folder, TEXTS)]
    for budget in (16, 4096):
        head = load_head(str(folder), device="cpu", token_budget=budget, cache=False)
        got = head.probabilities([(t,) for t in TEXTS])
        np.testing.assert_allclose(got, expected, atol=2e-6)
        assert all(p == round(p, postprocess.DECIMALS) for row in got for p in row)  # one rounding policy
    pairs = load_head(str(folder), device="cpu", cache=False).probabilities(PAIRS)
    direct = _direct(folder, [a for a, _ in PAIRS], [b for _, b in PAIRS])
    np.testing.assert_allclose(pairs, [torch.softmax(out.logits[0], -1).tolist() for out, _ in direct], atol=2e-6)


def test_embeddings_are_the_attention_weighted_mean_of_the_last_hidden_state():
    folder = tiny_model("cls-mrpc")
    head = load_head(str(folder), device="cpu", token_budget=24, cache=False)  # small budget: padded batches
    got = np.array(head.embeddings([(t,) for t in TEXTS]))
    expected = [out.last_hidden_state[0].mean(dim=0).numpy() for out, _ in _direct(folder, TEXTS, auto="AutoModel")]
    assert got.shape == (len(TEXTS), 32)
    np.testing.assert_allclose(got, np.array(expected), atol=1e-5)


def test_importance_singles_out_the_word_the_classifier_decides_by():
    folder = tiny_model("cls-one-word")
    head = load_head(str(folder), device="cpu", token_budget=64, cache=False)
    texts = ["the city by the river is old", "who wrote the novel", "a river", "when did the war end near the river"]
    assert [int(np.argmax(p)) for p in head.probabilities([(t,) for t in texts])] == [1, 0, 1, 1]
    results = head.importance([(t,) for t in texts])
    for text, item in zip(texts, results):
        words = text.split()
        per_word = postprocess.word_scores(item)
        assert sorted(per_word) == list(range(len(words)))
        ranked = sorted(per_word, key=lambda w: -abs(per_word[w]))
        if ONE_WORD in words:
            assert words[ranked[0]] == ONE_WORD and per_word[ranked[0]] < 0  # it supports the prediction
            assert abs(per_word[ranked[0]]) > 10 * abs(per_word[ranked[1]])
        assert item["label"] == (1 if ONE_WORD in words else 0)
        assert item["tokens"][0] == "[CLS]" and len(item["scores"]) == len(item["word_ids"]) == len(item["offsets"])
        for word, offset in zip(item["word_ids"], item["offsets"]):
            if word is not None:  # offsets let callers find each word in the text
                assert text[offset[0]:offset[1]] in words[word]


def test_batched_importance_equals_one_at_a_time_and_is_t_dot_gradient():
    folder = tiny_model("cls-mrpc")
    batched = load_head(str(folder), device="cpu", token_budget=4096, cache=False).importance([(t,) for t in TEXTS])
    single = Head(load_head(str(folder), device="cpu").ref, load_head(str(folder), device="cpu").placement,
                  token_budget=1, cache=False)
    alone = [single.importance([(t,)])[0] for t in TEXTS]
    for a, b in zip(batched, alone):
        assert a["tokens"] == b["tokens"] and a["label"] == b["label"]
        np.testing.assert_allclose(a["scores"], b["scores"], rtol=1e-4, atol=1e-6)
    # independently: autograd on one input, the loss of the predicted label
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(folder).eval()
    encoded = tokenizer(TEXTS[0], return_tensors="pt")
    embeds = model.get_input_embeddings()(encoded["input_ids"]).detach().requires_grad_(True)
    logits = model(inputs_embeds=embeds, attention_mask=encoded["attention_mask"],
                   token_type_ids=encoded["token_type_ids"]).logits
    torch.nn.functional.cross_entropy(logits, logits.argmax(-1)).backward()
    np.testing.assert_allclose(batched[0]["scores"], (embeds * embeds.grad).sum(-1)[0].tolist(), rtol=1e-4, atol=1e-6)


def test_one_backward_per_batch(monkeypatch):
    folder = tiny_model("cls-mrpc")
    head = load_head(str(folder), device="cpu", token_budget=4096, cache=False)
    calls = []
    original = torch.autograd.grad
    monkeypatch.setattr(torch.autograd, "grad", lambda *a, **k: calls.append(1) or original(*a, **k))
    head.importance([(t,) for t in TEXTS])
    assert len(calls) == 1


def test_fingerprint_decides_the_cache_and_provenance_adds_the_device(tmp_path):
    folder = tiny_model("cls-mrpc")
    head = load_head(str(folder), device="cpu", token_budget=64)
    task = Probabilities()
    fingerprint = head.fingerprint(task)
    assert fingerprint["model"] == {"model": "cls-mrpc", "revision": head.ref.revision}
    assert {"device", "token_budget", "max_batch"}.isdisjoint(fingerprint) and "64" not in str(fingerprint)
    assert head.provenance(task) == {**fingerprint, "device": "cpu"}
    assert head.fingerprint(Importance()) != fingerprint and head.fingerprint(Embeddings()) != fingerprint
    first = head.probabilities([(t,) for t in TEXTS])
    other_budget = load_head(str(folder), device="cpu", token_budget=4096)
    computed = []
    monkeypatch_forward = other_budget.forward
    other_budget.forward = lambda task, batch: computed.append(len(batch)) or monkeypatch_forward(task, batch)
    assert other_budget.probabilities([(t,) for t in TEXTS]) == first and computed == []  # the budget is not a key
    shorter = load_head(str(folder), device="cpu", max_length=8)
    shorter.forward = lambda task, batch: computed.append(len(batch)) or monkeypatch_forward(task, batch)
    shorter.probabilities([(TEXTS[0],)])
    assert computed == [1]  # max_length is


def test_batches_are_formed_by_length_then_content_never_position():
    folder = tiny_model("cls-mrpc")
    same_length = [f"word{i} x" for i in range(12)]  # equal token counts: ties everywhere
    seen = []
    for order in (same_length, same_length[::-1], same_length[5:] + same_length[:5]):
        head = load_head(str(folder), device="cpu", token_budget=24, cache=False)
        batches: list[list[str]] = []
        forward = head.forward
        tokenizer = head.tokenizer

        def spy(task, batch, forward=forward, batches=batches, tokenizer=tokenizer):
            batches.append(sorted(tokenizer.decode(f.ids["input_ids"], skip_special_tokens=True) for f in batch))
            return forward(task, batch)

        head.forward = spy
        head.probabilities([(t,) for t in order])
        seen.append(sorted(batches))
        assert len(batches) > 2
    assert seen[0] == seen[1] == seen[2]


def test_the_loaded_model_memo_keys_on_the_placement():
    from noisecraft.runtime import Placement, load_pretrained, resolve_model

    ref = resolve_model(str(tiny_model("cls-mrpc")))
    auto = transformers.AutoModelForSequenceClassification
    on_cpu = load_pretrained(auto, ref, Placement("cpu", "float32"))
    assert load_pretrained(auto, ref, Placement("cpu", "float32")) is on_cpu  # once per process and placement
    elsewhere = load_pretrained(auto, ref, Placement("meta", "float32"))  # another device, same precision
    assert elsewhere is not on_cpu and next(elsewhere.parameters()).device.type == "meta"
    assert next(on_cpu.parameters()).device.type == "cpu"
    half = load_pretrained(auto, ref, Placement("cpu", "bfloat16"))
    assert next(half.parameters()).dtype == torch.bfloat16


@pytest.mark.parametrize("how", ["in place", "renamed over"])
def test_a_folder_whose_weights_change_gets_a_new_digest(tmp_path, monkeypatch, how):
    """Same size, same mtime, other content: the memo (one process) must not serve the old digest."""
    import os
    import shutil

    from noisecraft.runtime import loading, resolve_model

    monkeypatch.setattr(loading, "_DOUBT_SECONDS", 0.0)  # trust stat stamps at once: the memo is what is tested
    folder = tmp_path / "model"
    shutil.copytree(tiny_model("cls-mrpc"), folder)
    weights = folder / "model.safetensors"
    first = resolve_model(str(folder)).revision
    hits = loading._memoised_folder_digest.cache_info().hits
    assert resolve_model(str(folder)).revision == first
    assert loading._memoised_folder_digest.cache_info().hits == hits + 1  # served from the memo
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    stamp = os.stat(weights)
    if how == "in place":
        weights.write_bytes(bytes(data))
    else:
        (folder / "new.tmp").write_bytes(bytes(data))
        os.replace(folder / "new.tmp", weights)
    os.utime(weights, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert os.stat(weights).st_size == stamp.st_size and os.stat(weights).st_mtime_ns == stamp.st_mtime_ns
    assert resolve_model(str(folder)).revision != first


def test_a_relative_model_folder_resolves(tmp_path, monkeypatch):
    import shutil

    from noisecraft.runtime import resolve_model

    shutil.copytree(tiny_model("cls-mrpc"), tmp_path / "models" / "mine")
    monkeypatch.chdir(tmp_path)
    ref = resolve_model("models/mine")
    assert ref.local and ref.revision == resolve_model(str(tmp_path / "models" / "mine")).revision
    assert ref.fingerprint()["model"] == "mine"


def test_length_batches_break_ties_by_content():
    from noisecraft.runtime.batching import length_batches, stable_key

    texts = [f"text {i}" for i in range(10)]
    made = []
    for order in (texts, texts[::-1], texts[3:] + texts[:3]):
        batches = length_batches([4] * len(order), token_budget=12, keys=[stable_key(t) for t in order])
        made.append([[order[i] for i in batch] for batch in batches])
        assert [len(b) for b in batches] == [1, 3, 3, 3]
    assert made[0] == made[1] == made[2]
    assert made[0] != [texts[i : i + 3] for i in (0, 3, 6)]  # not the input order
