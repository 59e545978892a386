"""The tiny models the golden files name are byte-identical on every install.

A model folder's digest is its revision, and a victim's or tagger's revision enters the seed of every example
it shapes (grammar-attack@1, replace-entity@1): a folder that follows the installed library (transformers 5.24
stamped its version into config.json) changes golden outputs on a fresh machine. A failure here names the model
whose files moved, before the golden test reports a bare output mismatch.
"""

from __future__ import annotations

import json

import pytest

from noisecraft.runtime.loading import folder_digest

from tiny_models import RECORDED_TRANSFORMERS_VERSION, tiny_model

#: The digests of the folders the golden files were written with.
GOLDEN_DIGESTS = {
    "cls-mrpc": "sha256:7c86dd22edf909e8a5ed07bfa92900ac729a4581fcfea9467d78bb89aedc6071",
    "ner-tagger": "sha256:24a259106d3a325cd5ad33bf6dad1522a6acea416517c512cf2626e3c297f1ab",
    "marian-en-de": "sha256:c1bd37b26962f3cd9ae833a8d0efe569e38526a49a21a8bcfd4ff54c62913973",
    "marian-de-en": "sha256:aac7dc7537349911710d998fb74fe16857f7e76edfe1822d698d476b1158768c",
}


@pytest.mark.parametrize("name", sorted(GOLDEN_DIGESTS))
def test_tiny_model_folders_do_not_depend_on_the_install(name):
    folder = tiny_model(name)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["transformers_version"] == RECORDED_TRANSFORMERS_VERSION
    assert folder_digest(folder) == GOLDEN_DIGESTS[name], (
        f"tiny model {name}: its files differ from those the golden files were written with (weights, tokenizer "
        f"or config serialisation changed with the installed libraries): {sorted(p.name for p in folder.iterdir())}")
