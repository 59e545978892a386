"""Noise models from installed packages (the ``noisecraft.noise_models`` entry-point group), used as a user would:
a package on the path declares its model, and the CLI lists it, builds with it in spawned workers, and refuses a
broken or name-stealing plugin in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import datasets

from noisecraft.noise_models.catalogue import PLUGIN_GROUP

PLUGIN = '''
from dataclasses import dataclass
from typing import ClassVar

from noisecraft.core.edits import Edit, noised_from_edits
from noisecraft.core.params import param
from noisecraft.noise_models.base import Capabilities, NoiseModel


@dataclass(frozen=True)
class Shout(NoiseModel):
    """Shouted words: each word is upper-cased with probability ``rate``."""

    rate: float = param(0.5, "probability that a word is upper-cased", min=0.0, max=1.0)

    name: ClassVar[str] = "{name}"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = ""
    capabilities: ClassVar[Capabilities] = Capabilities()

    def apply(self, batch):
        results = []
        for text, rng in zip(batch.texts, batch.rngs):
            edits, start = [], 0
            for word in text.split(" "):
                if word and word.upper() != word and rng.random() < self.rate:
                    edits.append(Edit(start, start + len(word), word, word.upper(), "shout"))
                start += len(word) + 1
            results.append(noised_from_edits(text, edits))
        return results
'''


def install(folder: Path, entry: str, name: str = "shout") -> dict[str, str]:
    """A package ``shout-noise`` on ``folder`` (its module and its dist-info, as pip would leave them) declaring
    ``entry`` in the plugin group; the environment that puts it on the path."""
    folder.mkdir()
    (folder / "shout_noise.py").write_text(PLUGIN.format(name=name), encoding="utf-8")
    info = folder / "shout_noise-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shout-noise\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[noisecraft.noise_models]\n{entry}\n", encoding="utf-8")
    (info / "RECORD").write_text("shout_noise.py,,\n", encoding="utf-8")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")]),
            "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def noisecraft(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "noisecraft.cli", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_an_installed_plugin_is_listed_and_builds_in_spawned_workers(tmp_path):
    env = install(tmp_path / "site", "shout = shout_noise:Shout")
    listed = noisecraft(env, "noises")
    assert listed.returncode == 0, listed.stderr
    assert "shout@1 (plugin from shout-noise): Shouted words: each word is upper-cased with probability ``rate``." \
        in listed.stdout
    assert "  rate (float in [0.0, 1.0], default 0.5): probability that a word is upper-cased" in listed.stdout
    assert "keyboard@2:" in listed.stdout
    built = noisecraft(env, "build", "--source", "demo", "--noise", "shout(rate=1.0)", "--out", str(tmp_path / "out"),
                       "--num-proc", "2", "--no-progress")
    assert built.returncode == 0, built.stderr
    rows = datasets.load_dataset(str(tmp_path / "out"), "demo-en-shout-rate1.0", split="validation")
    assert set(rows["noise_name"]) == {"shout"}
    assert rows[0]["question"] == rows[0]["question"].upper() != rows[0]["original_question"]
    card = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "Shouted words: each word is upper-cased with probability ``rate``. Parameters: rate=1.0." in card
    assert "shout-noise 1.0" in card  # what to install to regenerate it


def test_a_plugin_that_cannot_be_imported_or_takes_a_built_in_name_is_refused_in_one_line(tmp_path):
    broken = noisecraft(install(tmp_path / "broken", "shout = shout_nois:Shout"), "build", "--source", "demo",
                        "--noise", "shout", "--out", str(tmp_path / "a"))
    assert broken.returncode == 2
    assert broken.stderr.startswith("noisecraft: error: noise model plugin shout = shout_nois:Shout (package "
                                    "shout-noise) cannot be loaded: ModuleNotFoundError: No module named 'shout_nois'")
    assert broken.stderr.count("\n") == 1
    stealing = noisecraft(install(tmp_path / "stealing", "keyboard = shout_noise:Shout", name="keyboard"), "noises")
    assert stealing.returncode == 2
    assert stealing.stderr == ("noisecraft: error: noise model plugin keyboard = shout_noise:Shout (package shout-noise) "
                               "takes the built-in name 'keyboard'; give it a name of its own\n")
    assert not (tmp_path / "a").exists()


def test_the_documented_declaration_names_the_plugin_group():
    import re
    import tomllib

    page = (Path(__file__).resolve().parents[1] / "docs" / "extending.md").read_text(encoding="utf-8")
    declared = tomllib.loads(re.search(r"^```toml\n(.*?)^```$", page, re.MULTILINE | re.DOTALL).group(1))
    assert declared["project"]["entry-points"][PLUGIN_GROUP] == {"double-space": "my_noise:DoubleSpace"}
