"""A challenge set to evaluate: a folder made by ``noisecraft build`` or a Hub dataset repo at a revision.

Both carry the manifest at the end of their card (``README.md``, :mod:`noisecraft.dataset.repo`), which
says per config the source, language, split, perturbed fields and noise. A config is loaded with
``datasets`` (a local folder through a throw-away cache, so a rebuilt folder is never read stale) and
turned into paired examples: the clean side is each perturbed field's ``original_<field>`` column,
the noisy side the field itself; other inputs (a SQuAD context that was not perturbed) are the same
on both sides. Rows keep their ids, so both sides are the same examples.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from noisecraft.core.stats import FieldScores
from noisecraft.dataset.publish import check_rows, file_problems
from noisecraft.dataset.repo import CARD, CHALLENGE_SET, data_files, manifest_or_none, split_card
from noisecraft.errors import ConfigError
from noisecraft.harness.tasks import QA, TOKENS, TaskSpec, task_of
from noisecraft.noise_models.registry import model_class


@dataclass(frozen=True)
class ConfigData:
    """One config's examples, clean and noisy side by side (lists in row order).

    Inputs per task: classification ``[sentence]`` or ``[first, second]``; QA ``[question, context]``;
    token classification the token list. ``gold``: a class index, the answer texts, or the tag names.
    """

    name: str
    split: str
    lang: str
    noise: str
    fields: tuple[str, ...]
    task: TaskSpec
    ids: list[str]
    clean: list[Any]
    noisy: list[Any]
    gold: list[Any]
    edit_counts: list[int]
    cer: list[float]
    #: The noise's ``name@version`` (steps joined by `` | ``) and parameters, as the manifest records them.
    noise_id: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    #: Whether the noise rewrites the whole field (one edit per changed row, whatever it did).
    whole_field: bool = False
    #: The source the rows come from: configs of one source and split share their rows (same ids).
    source: str = ""
    #: The seed the noise was drawn with (configs of one noise under several seeds are averaged in word-salad tables).
    seed: int = 0

    def describe(self) -> dict[str, Any]:
        """The config as the report lists it."""
        return {"name": self.name, "split": self.split, "lang": self.lang, "noise": self.noise, "fields": list(self.fields),
                "task": self.task.kind, "rows": len(self.ids)}

    def rows(self, positions: list[int]) -> ConfigData:
        """The config restricted to the rows at ``positions`` (in that order): the rows a model was run on."""
        def pick(values: list[Any]) -> list[Any]:
            return [values[i] for i in positions]

        return replace(self, ids=pick(self.ids), clean=pick(self.clean), noisy=pick(self.noisy), gold=pick(self.gold),
                       edit_counts=pick(self.edit_counts), cer=pick(self.cer))


@dataclass
class ChallengeSet:
    """A set's manifest and where it comes from: a local ``folder``, or a Hub ``repo_id`` at ``revision``."""

    name: str
    manifest: dict[str, Any]
    folder: Path | None = None
    revision: str | None = None
    commit: str | None = None

    @property
    def config_names(self) -> list[str]:
        return list(self.manifest["configs"])

    def provenance(self, configs: list[str]) -> dict[str, Any]:
        """What identifies the evaluated data: the Hub commit, or the digest of the local parquet files."""
        record: dict[str, Any] = {"name": self.name if self.folder is None else self.folder.name,
                                  "version": self.manifest.get("version"),
                                  "toolkit_version": self.manifest.get("toolkit_version")}
        if self.folder is None:
            record.update(revision=self.revision, commit=self.commit)
        else:
            digest = hashlib.sha256()
            for config in configs:
                for paths in data_files(self.manifest, config).values():
                    for path in paths:
                        digest.update(path.split("/")[-1].encode("utf-8") + b"\0" + (self.folder / path).read_bytes())
            record["files_sha256"] = digest.hexdigest()
        return record

    def load(self, config: str, split: str | None = None, limit: int | None = None) -> ConfigData:
        """The paired examples of ``config`` (its built split unless ``split`` is given; the first ``limit`` rows)."""
        if config not in self.manifest["configs"]:
            raise ConfigError(f"{self.name} has no config {config!r}; its configs: {', '.join(self.config_names)}")
        spec = self.manifest["configs"][config]["spec"]
        split = split or spec["split"]
        if self.folder is not None:
            from noisecraft.dataset.publish import load_fresh

            try:
                dataset = load_fresh(self.folder, config, split)
            except Exception as exc:  # datasets raises many types for a missing split or unreadable files
                raise ConfigError(f"{self.folder}: config {config} split {split!r} does not load: {exc}") from exc
        else:
            from noisecraft.core.hub import load_hub_dataset

            dataset = load_hub_dataset(self.name, config, split, self.revision,
                                       hint="download the dataset where there is network, or evaluate a local folder")
        if split == spec["split"]:  # the manifest counts the built split's rows
            check_rows(self.name, config, self.manifest["configs"][config], dataset.num_rows)
        if limit is not None:
            dataset = dataset.select(range(min(limit, dataset.num_rows)))
        return paired_examples(config, split, spec, dataset)


def open_challenge_set(dataset: str | Path, revision: str | None = None) -> ChallengeSet:
    """Open a local folder made by ``noisecraft build``, or a Hub dataset repo (``org/name``) at ``revision``."""
    folder = Path(dataset).expanduser()
    if folder.is_dir():
        if revision is not None:
            raise ConfigError(f"{dataset} is a local folder: --revision applies to Hub datasets")
        manifest = _challenge_manifest(manifest_or_none(folder), str(dataset))
        problems = file_problems(folder, manifest)  # as publish verifies it
        if problems:
            raise ConfigError(f"{dataset} does not verify, nothing evaluated: " + "; ".join(problems))
        return ChallengeSet(str(dataset), manifest, folder=folder)
    if str(dataset).count("/") != 1 or str(dataset).startswith((".", "/", "~")):
        raise ConfigError(f"dataset {str(dataset)!r}: no such folder, and not a Hub dataset id (org/name)")
    return _open_hub(str(dataset), revision)


def _challenge_manifest(manifest: dict[str, Any] | None, name: str) -> dict[str, Any]:
    """``manifest`` (read from the card of ``name``) if it is a challenge set's with configs; else a one-line error."""
    if manifest is None:
        raise ConfigError(f"{name} holds no noisecraft manifest (at the end of its {CARD}): evaluate a folder made by "
                          "`noisecraft build` (or a Hub repo it published)")
    kind = manifest.get("kind", CHALLENGE_SET)
    if kind != CHALLENGE_SET:
        raise ConfigError(f"{name} is a {kind}, not a challenge set: nothing to evaluate")
    if not manifest["configs"]:
        raise ConfigError(f"{name} has no configs")
    return manifest


def _open_hub(repo_id: str, revision: str | None) -> ChallengeSet:
    from huggingface_hub import hf_hub_download

    from noisecraft.core.hub import UNREACHABLE, dataset_commit, hub_available

    online = hub_available()
    try:
        path = hf_hub_download(repo_id, CARD, repo_type="dataset", revision=revision, local_files_only=not online)
    except Exception as exc:  # huggingface_hub raises HTTP, not-found and offline errors of many types
        where = f"{repo_id}{f' at revision {revision!r}' if revision else ''}"
        if not online:
            raise ConfigError(f"{UNREACHABLE} and the manifest of {where} is not in the local Hugging Face cache") from exc
        raise ConfigError(f"cannot read the card of dataset {where} from the Hub (not a noisecraft challenge set?): "
                          f"{' '.join(str(exc).split())}") from exc
    try:
        card = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{repo_id}: unreadable card: {exc}") from exc
    manifest = _challenge_manifest(split_card(card, Path(path))[1], repo_id)
    return ChallengeSet(repo_id, manifest, revision=revision, commit=dataset_commit(repo_id, revision))


def character_error_rate(originals: list[str], noisy: list[str]) -> float:
    """The row's CER as a fraction, computed as the card computes it (:class:`noisecraft.core.stats.FieldScores`:
    jiwer's CER, summed over the perturbed fields), so a breakdown and the card never disagree."""
    scores = FieldScores()
    scores.add_all(originals, noisy)
    return scores.exact_scores()["cer"] / 100


def rewrites_whole_field(noise_id: str) -> bool:
    """Whether a step of the noise (``name@version``, steps joined by ``|``) logs whole-field rewrites."""
    try:
        return any(model_class(step).capabilities.edit_log == "whole-field" for step in noise_id.split("|") if step.strip())
    except ConfigError:  # a noise this noisecraft does not know (a set built by a newer one): count its edits
        return False


def _as_text(value: Any) -> str:
    return " ".join(value) if isinstance(value, list) else value


def paired_examples(config: str, split: str, spec: dict[str, Any], dataset: Any) -> ConfigData:
    """Clean and noisy inputs, gold labels, edit counts and per-example CER of a loaded config."""
    task = task_of(config, spec, dataset.features)
    fields = tuple(spec["fields"])
    missing = [c for c in (*task.inputs, task.target, "id", "noise_edits", *(f"original_{f}" for f in fields))
               if c not in dataset.column_names]
    if missing:
        raise ConfigError(f"config {config}: column(s) {', '.join(missing)} missing; not a noisecraft challenge set?")
    columns = dataset.select_columns(sorted({*task.inputs, task.target, "id", "noise_edits",
                                             *(f"original_{f}" for f in fields)}))[:]
    rows = len(columns["id"])

    def side(name: str, noisy: bool) -> list[Any]:
        return columns[name] if noisy or name not in fields else columns[f"original_{name}"]

    def inputs(noisy: bool) -> list[Any]:
        if task.kind == TOKENS:
            return list(side(task.inputs[0], noisy))
        return [list(values) for values in zip(*(side(name, noisy) for name in task.inputs))]

    if task.kind == QA:
        gold: list[Any] = [answers["text"] for answers in columns[task.target]]
    elif task.kind == TOKENS:
        gold = [[task.label_names[t] for t in tags] for tags in columns[task.target]]
    else:
        gold = list(columns[task.target])
        unlabelled = [columns["id"][i] for i, label in enumerate(gold) if label < 0]
        if unlabelled:
            raise ConfigError(f"config {config} split {split!r}: {len(unlabelled)} row(s) have no label (first id "
                              f"{unlabelled[0]!r}); evaluate a labelled split")
    cer = [character_error_rate([_as_text(columns[f"original_{f}"][i]) for f in fields],
                                [_as_text(columns[f][i]) for f in fields]) for i in range(rows)]
    return ConfigData(
        name=config, split=split, lang=spec["lang"], noise=spec.get("noise_spec", spec.get("noise", "")), fields=fields,
        task=task, ids=[str(i) for i in columns["id"]], clean=inputs(False), noisy=inputs(True), gold=gold,
        edit_counts=[len(edits) for edits in columns["noise_edits"]], cer=cer, noise_id=spec.get("noise", ""),
        params=dict(spec.get("params") or {}), whole_field=rewrites_whole_field(spec.get("noise", "")),
        source=spec.get("source", ""), seed=int(spec.get("seed", 0)),
    )
