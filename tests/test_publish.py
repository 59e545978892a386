"""Publishing: a version tag only after the uploaded files verify (against an in-memory Hub)."""

from __future__ import annotations

import fnmatch
import hashlib
from pathlib import Path
from types import SimpleNamespace

import pytest

from noisecraft.building.pipeline import ConfigRequest, build_config, write_card
from noisecraft.dataset.publish import git_blob_id, publish
from noisecraft.dataset.repo import DatasetRepo, card_with_manifest, read_manifest, split_card
from noisecraft.errors import ConfigError, NoisecraftError

from test_cli import noisecraft


class FakeHub:
    """Just enough of ``HfApi`` to publish: files per commit, tags, optional corruption."""

    def __init__(self, corrupt: str | None = None) -> None:
        self.commits: dict[str, dict[str, bytes]] = {}
        self.tags: dict[str, str] = {}
        self.corrupt = corrupt

    def create_repo(self, repo_id, **kwargs):
        return repo_id

    def list_repo_refs(self, repo_id, **kwargs):
        return SimpleNamespace(tags=[SimpleNamespace(name=t) for t in self.tags])

    def upload_folder(self, *, folder_path, allow_patterns=("*",), delete_patterns=None, **kwargs):
        files = {p.relative_to(folder_path).as_posix(): p.read_bytes()
                 for p in Path(folder_path).rglob("*") if p.is_file()
                 and any(fnmatch.fnmatch(p.relative_to(folder_path).as_posix(), pat) for pat in allow_patterns)}
        previous = dict(self.commits[list(self.commits)[-1]]) if self.commits else {}
        if delete_patterns:
            previous = {k: v for k, v in previous.items() if not any(fnmatch.fnmatch(k, pat) for pat in delete_patterns)}
        files = {**previous, **files}
        if self.corrupt:
            files[self.corrupt] = files[self.corrupt][:-1]
        oid = f"commit{len(self.commits)}"
        self.commits[oid] = files
        return SimpleNamespace(oid=oid)

    def list_repo_files(self, repo_id, *, revision, **kwargs):
        return [*self.commits[revision], ".gitattributes"]

    def get_paths_info(self, repo_id, paths, *, revision, **kwargs):
        files = self.commits[revision]
        def lfs(path: str) -> SimpleNamespace | None:
            return SimpleNamespace(sha256=hashlib.sha256(files[path]).hexdigest()) if path.endswith(".parquet") else None

        return [SimpleNamespace(path=p, size=len(files[p]), lfs=lfs(p), blob_id=git_blob_id(files[p]))
                for p in paths if p in files]

    def create_tag(self, repo_id, *, tag, revision, **kwargs):
        self.tags[tag] = revision


@pytest.fixture
def built_repo(tmp_path: Path) -> Path:
    repo = DatasetRepo(tmp_path / "out", "1.2.0")
    build_config(repo, ConfigRequest(source="demo", noise="keyboard"), progress=False)
    write_card(repo)
    return tmp_path / "out"


def data_file(folder: Path) -> str:
    [path] = read_manifest(folder)["configs"]["demo-en-keyboard"]["files"]["validation"]
    return path


def test_publish_uploads_verifies_and_tags(built_repo):
    hub = FakeHub()
    assert publish(built_repo, "org/demo", api=hub) == "v1.2.0"
    assert hub.tags == {"v1.2.0": "commit0"}
    assert set(hub.commits["commit0"]) == {"README.md", data_file(built_repo)}


def test_files_no_card_names_are_neither_checked_nor_uploaded(built_repo):
    (built_repo / "demo-en-keyboard" / "validation-0123456789ab-00000-of-00001.parquet").write_bytes(b"PAR1")
    (built_repo / "stale").mkdir()
    (built_repo / "stale" / "validation-0123456789ab-00000-of-00001.parquet").write_bytes(b"PAR1")
    hub = FakeHub()
    publish(built_repo, "org/demo", api=hub)
    assert set(hub.commits["commit0"]) == {"README.md", data_file(built_repo)}


def test_no_tag_when_the_upload_does_not_verify(built_repo):
    hub = FakeHub(corrupt=data_file(built_repo))
    with pytest.raises(NoisecraftError, match="did not verify, no tag created: .*bytes on the Hub"):
        publish(built_repo, "org/demo", api=hub)
    assert hub.tags == {}


def test_a_published_version_is_never_rewritten(built_repo):
    hub = FakeHub()
    publish(built_repo, "org/demo", api=hub)
    with pytest.raises(ConfigError, match="already has tag v1.2.0"):
        publish(built_repo, "org/demo", api=hub)


def test_publish_command_offline_fails_cleanly(built_repo):
    result = noisecraft("publish", str(built_repo), "--repo-id", "org/demo")
    assert result.returncode == 2
    assert "nothing was tagged" in result.stderr and "Traceback" not in result.stderr


def test_remote_files_of_an_older_version_are_deleted(built_repo):
    hub = FakeHub()
    hub.commits["commit-old"] = {"old-config/validation-0123456789ab-00000-of-00001.parquet": b"x"}
    publish(built_repo, "org/demo", api=hub)
    assert "old-config/validation-0123456789ab-00000-of-00001.parquet" not in hub.commits["commit1"]


def test_a_remote_file_left_after_upload_fails_the_check(built_repo, monkeypatch):
    hub = FakeHub()
    original = hub.list_repo_files
    monkeypatch.setattr(hub, "list_repo_files", lambda *a, **k: [*original(*a, **k), "stray.parquet"])
    with pytest.raises(NoisecraftError, match="stray.parquet: on the Hub but not in this version"):
        publish(built_repo, "org/demo", api=hub)
    assert hub.tags == {}


@pytest.mark.parametrize("damage", ["changed", "missing", "card", "no-manifest", "rows", "card-text", "link-out"])
def test_a_folder_that_does_not_verify_locally_is_not_uploaded(built_repo, damage):
    card = built_repo / "README.md"
    body, manifest = split_card(card.read_text(encoding="utf-8"), card)
    if damage == "changed":  # a data file changed after its commit: it is no longer the content its name addresses
        (built_repo / data_file(built_repo)).write_bytes((built_repo / data_file(built_repo)).read_bytes() + b"\0")
        message = "its content is not what its name addresses"
    elif damage == "missing":
        (built_repo / data_file(built_repo)).unlink()
        message = "validation-[0-9a-f]{12}-00000-of-00001.parquet: missing"
    elif damage == "card":
        card.write_text(card.read_text(encoding="utf-8").replace("config_name: demo-en-keyboard", "config_name: other"),
                        encoding="utf-8")
        message = "card configs .* differ from the manifest"
    elif damage == "no-manifest":  # a card edited by hand that lost the manifest
        card.write_text(body, encoding="utf-8")
        message = "holds no noisecraft dataset"
    elif damage == "card-text":  # the card says another rate than the manifest records
        card.write_text(card_with_manifest(body.replace("0.25", "0.9"), manifest), encoding="utf-8")
        message = r"README.md, line \d+: the card differs from what its manifest renders"
    elif damage == "link-out":  # the upload would publish the target, a file outside the folder
        secret = built_repo.parent / "secret.txt"
        secret.write_text("not for the Hub", encoding="utf-8")
        (built_repo / "demo-en-keyboard" / "notes.txt").symlink_to(secret)
        message = "demo-en-keyboard/notes.txt is a symlink to .*secret.txt, outside the folder"
    else:
        manifest["configs"]["demo-en-keyboard"]["stats"]["rows"] = 40
        card.write_text(card_with_manifest(body, manifest), encoding="utf-8")
        message = "loads 41 rows, the manifest says 40"
    hub = FakeHub()
    with pytest.raises(ConfigError, match=message):
        publish(built_repo, "org/demo", api=hub)
    assert hub.commits == {} and hub.tags == {}
