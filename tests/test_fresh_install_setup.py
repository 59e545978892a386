"""The offline route a newcomer follows from the README: ``noisecraft setup nltk-data`` prepares what grammar
noise needs (Debian's WordNet and a perceptron tagger trained on a local corpus), and says how to get what is
missing instead of failing with a traceback."""

from __future__ import annotations

import pytest

import noisecraft as nc
from noisecraft.cli import main
from noisecraft.errors import ConfigError
from noisecraft.grammar.nltk_data import WORDNET_HINT, debian_wordnet_missing, prepare_nltk_data

from tiny_models import POS_SAMPLE, tiny_model


def test_setup_nltk_data_writes_what_the_test_fixtures_use(tmp_path, capsys):
    if debian_wordnet_missing():
        pytest.skip(debian_wordnet_missing())
    out = tmp_path / "nltk_data"
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE), "--iterations", "8"]) == 0
    assert f"nltk_data={out}" in capsys.readouterr().out
    fixture = tiny_model("nltk-data-sample")
    for made in sorted(p for p in fixture.rglob("*") if p.is_file()):
        assert (out / made.relative_to(fixture)).read_bytes() == made.read_bytes(), made.name
    model = nc.noise("grammar", confusions=str(tiny_model("gec-confusions-sample")), nltk_data=str(out), tagger="nltk")
    assert model.augment(["The old teacher often gives the students very difficult homework ."], seed=0) != [
        "The old teacher often gives the students very difficult homework ."]
    assert main(["setup", "nltk-data", str(out), "--tagged", str(POS_SAMPLE)]) == 2  # never over an existing folder
    assert "already exists" in capsys.readouterr().err


def test_missing_wordnet_says_how_to_install_it(tmp_path):
    with pytest.raises(ConfigError, match=WORDNET_HINT.replace("-", r"\-")):
        prepare_nltk_data(tmp_path / "out", POS_SAMPLE, wordnet=tmp_path / "no-wordnet")
    assert not (tmp_path / "out").exists()  # checked before anything is written


@pytest.mark.parametrize("content, where", [("word\n", "line 1: expected 'word TAG ...'"), ("", "no tagged sentence"),
                                             ("# only a comment\n\n", "no tagged sentence")])
def test_bad_tagged_corpus_is_a_one_line_error_naming_the_line(tmp_path, capsys, content, where):
    if debian_wordnet_missing():
        pytest.skip(debian_wordnet_missing())
    tagged = tmp_path / "tagged.txt"
    tagged.write_text(content, encoding="utf-8")
    assert main(["setup", "nltk-data", str(tmp_path / "out"), "--tagged", str(tagged)]) == 2
    [message] = capsys.readouterr().err.strip().splitlines()
    assert message.startswith(f"noisecraft: error: {tagged}") and where in message
    assert not (tmp_path / "out").exists()


def test_every_package_folder_is_declared_for_a_wheel_install():
    """An editable install finds every sub-package through the folder mapping, a wheel only those named in
    pyproject.toml's ``packages``: a new folder missing there would install fine here and break for users."""
    import tomllib

    from conftest import REPO_ROOT

    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = set()
    for package, folder in config["package-dir"].items():
        root = REPO_ROOT / folder
        for init in root.rglob("__init__.py"):
            found.add(".".join((package, *init.parent.relative_to(root).parts)))
    missing = sorted(found - set(config["packages"]))
    assert not missing, f"package folders not listed in pyproject.toml [tool.setuptools] packages: {missing}"
