"""The model runtime shared by every model-based noise model (MT, ASR, victim models) and by the
evaluation harness (DESIGN.md "Model runtime").

* :mod:`.device` picks the device (cuda, mps, cpu) and the precision (bf16/fp16 on GPU);
* :mod:`.loading` resolves a model id **and revision** (or a local folder) to what is loaded and
  recorded, and loads each model once per process;
* :mod:`.batching` forms length-bucketed batches under a token budget and returns results in input
  order, with a progress bar in items/s;
* :mod:`.cache` is the content-addressed on-disk cache of model outputs, so a new seed, a new config
  or a re-run repeats no model call;
* :mod:`.heads` is the one path that runs an encoder (classification probabilities, QA spans, word labels,
  entities, mean-pooled embeddings, gradient importance), with the pure post-processors of
  :mod:`.postprocess` (import ``noisecraft.runtime.heads``: it needs numpy); :mod:`.seq2seq` generates with
  sequence-to-sequence models.

Every model runner names two things the same way: its **fingerprint** (what decides its outputs: model +
resolved revision + settings + precision + library versions; the cache key; never the device or the batch
size) and its **provenance** (the fingerprint plus the device, as cards and reports record it).

Nothing here imports torch at module level: ``import noisecraft.runtime`` is cheap; the functions
that need torch import it (and say which extra to install when it is missing).
"""

from noisecraft.runtime.batching import length_batches, run_batched
from noisecraft.runtime.cache import CurrentCache, ResultCache, cache_root, cached_map
from noisecraft.runtime.device import Placement, pick_placement
from noisecraft.runtime.loading import ModelRef, library_versions, load_pretrained, resolve_model

__all__ = ["length_batches", "run_batched", "CurrentCache", "ResultCache", "cache_root", "cached_map", "Placement",
           "pick_placement", "ModelRef", "library_versions", "load_pretrained", "resolve_model"]
