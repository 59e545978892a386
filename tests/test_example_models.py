"""``noisecraft setup example-models``: the model folders the README names, made offline, each labelled; and a
model named by a missing local folder is called a missing folder, not a Hub id to download."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noisecraft as nc
from noisecraft.cli import main
from noisecraft.errors import ConfigError
from noisecraft.runtime.example_models import MRPC_LABELS

from conftest import CORPORA, corpus

README_MODELS = {"opus-mt-en-de": "random", "opus-mt-de-en": "random", "mrpc-model": "fine-tuned",
                 "squad-model": "fine-tuned", "causal-lm": "random"}


@pytest.mark.slow
def test_setup_example_models_makes_every_readme_model_labelled(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    import transformers

    corpus("glue/MRPC/train.tsv")  # skips (fails in CI) without the corpora
    out = tmp_path / "models"
    assert main(["setup", "example-models", str(out), "--corpora", str(CORPORA), "--steps", "1"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]  # nothing staged left beside it
    assert {p.name for p in out.iterdir()} == set(README_MODELS)
    for name, kind in README_MODELS.items():
        label = json.loads((out / name / "noisecraft_example.json").read_text(encoding="utf-8"))
        assert label["kind"] == kind and label["example_model"] == name
        assert kind in (out / name / "README.md").read_text(encoding="utf-8")
    classifier = transformers.AutoConfig.from_pretrained(out / "mrpc-model")
    assert tuple(classifier.id2label[i] for i in range(2)) == MRPC_LABELS and classifier.num_hidden_layers == 6
    assert transformers.AutoConfig.from_pretrained(out / "squad-model").architectures == ["BertForQuestionAnswering"]
    mt = nc.noise("translation", max_new_tokens=8, forward_model=str(out / "opus-mt-en-de"),
                  backward_model=str(out / "opus-mt-de-en"))
    assert len(mt.augment(["When did Beyonce start becoming popular?"])) == 1
    capsys.readouterr()
    assert main(["setup", "example-models", str(out), "--corpora", str(CORPORA)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_setup_example_models_needs_the_corpora(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["setup", "example-models", str(tmp_path / "models"), "--corpora", str(tmp_path)]) == 2
    assert "glue/MRPC/train.tsv: no such file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("with_parent", [True, False])
def test_a_missing_local_model_folder_is_called_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       with_parent: bool) -> None:
    monkeypatch.chdir(tmp_path)
    if with_parent:
        (tmp_path / "models").mkdir()  # models/NAME beside a models/ folder: a folder, never a Hub user's model
    expected = "no such folder" if with_parent else "there is no folder models/opus-mt-en-de"
    with pytest.raises(ConfigError, match=expected) as error:
        nc.noise("translation", forward_model="models/opus-mt-en-de", backward_model="models/opus-mt-de-en")
    assert ("hf download" in str(error.value)) != with_parent
