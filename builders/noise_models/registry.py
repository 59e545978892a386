"""Noise models by registry name, and their one text form: ``name[@version][(key=value, ...)] | ...``.

The text form is what ``--noise`` takes, what recipes may hold, and what cards print in their
"regenerate" commands: :func:`parse_noise` and :func:`format_noise` are inverse, and both read the
model's declared parameters, so nothing is wired by hand per model. ``|`` chains models.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from noisecraft.errors import ConfigError
from noisecraft.noise_models.base import NoiseModel
from noisecraft.noise_models.catalogue import LATEST, MODELS, plugin_points
from noisecraft.noise_models.chain import NoiseChain

#: Classes registered by :func:`register_noise` (defined outside noisecraft), by ``(name, version)``.
_REGISTERED: dict[tuple[str, int], type[NoiseModel]] = {}
#: The names noisecraft itself ships.
BUILT_IN = frozenset(name for name, _ in MODELS)


def _load(name: str, version: int) -> type[NoiseModel]:
    """The class of a registered ``(name, version)``, imported on first use."""
    if (name, version) in _REGISTERED:
        return _REGISTERED[name, version]
    module, cls = MODELS[name, version]
    return getattr(importlib.import_module(f"noisecraft.noise_models.{module}"), cls)


def register_noise(cls: type[NoiseModel]) -> type[NoiseModel]:
    """Make a noise model defined outside noisecraft known by its ``name@version`` in this process (``nc.noise``,
    ``--noise`` text, recipes), as the built-in ones are; usable as a class decorator. A name@version that is
    taken by another class is refused: a published set names the one model that made it."""
    key = (cls.name, cls.version)
    if key in MODELS and _load(*key) is not cls:
        raise ConfigError(f"{cls.name}@{cls.version} is already registered; give the new model another name or version")
    _REGISTERED[key] = cls
    MODELS[key] = (cls.__module__, cls.__qualname__)
    LATEST[cls.name] = max(LATEST.get(cls.name, 0), cls.version)
    return cls


@cache
def load_plugins() -> dict[str, str]:
    """Register every noise model installed packages declare in the plugin group (once per process);
    ``name@version`` -> the distribution that provides it. A plugin may not take a built-in name: a plain
    ``keyboard`` must mean noisecraft's own model in every process, whether plugins were loaded or not."""
    found: dict[str, str] = {}
    for point in plugin_points():
        where = f"noise model plugin {point.name} = {point.value}" + (f" (package {point.dist.name})" if point.dist else "")
        try:
            cls = point.load()
        except Exception as exc:  # any import error of a third-party module: name the plugin, not a traceback
            raise ConfigError(f"{where} cannot be loaded: {type(exc).__name__}: {exc}") from exc
        if not (isinstance(cls, type) and issubclass(cls, NoiseModel)):
            raise ConfigError(f"{where} is not a NoiseModel class")
        if cls.name in BUILT_IN:
            raise ConfigError(f"{where} takes the built-in name {cls.name!r}; give it a name of its own")
        register_noise(cls)
        found[f"{cls.name}@{cls.version}"] = point.dist.name if point.dist else point.value
    return found


def outside_packages(model: NoiseModel) -> dict[str, str]:
    """``name@version`` -> ``"package version"`` for each step of ``model`` defined outside noisecraft, so that a
    card says what to install to regenerate it (a module no installed distribution provides: its module name)."""
    from importlib.metadata import packages_distributions, version

    outside = [step for step in model.steps() if type(step).__module__.partition(".")[0] != "noisecraft"]
    owners = packages_distributions() if outside else {}  # reads every installed distribution's file list
    found: dict[str, str] = {}
    for step in outside:
        module = type(step).__module__
        dists = owners.get(module.partition(".")[0], [])
        found[f"{step.name}@{step.version}"] = f"{dists[0]} {version(dists[0])}" if dists else f"module {module}"
    return found


def __getattr__(attribute: str) -> Any:
    """``VERSIONS`` (every buildable ``(name, version)`` -> class) and ``NOISE_MODELS`` (name -> newest
    class): computed on access, because they import every model (see :mod:`.catalogue`)."""
    if attribute == "VERSIONS":
        return {key: _load(*key) for key in sorted(MODELS)}
    if attribute == "NOISE_MODELS":
        return {name: _load(name, version) for name, version in LATEST.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


def model_class(name: str) -> type[NoiseModel]:
    """The class of ``name`` or ``name@version`` (which must exist)."""
    base, _, version = name.strip().partition("@")
    if base not in LATEST:
        load_plugins()
    if base not in LATEST:
        raise ConfigError(f"unknown noise {name!r}; available: {', '.join(sorted(LATEST))}")
    if not version:
        return _load(base, LATEST[base])
    if not version.isdigit() or (base, int(version)) not in MODELS:
        known = ", ".join(f"{base}@{v}" for n, v in sorted(MODELS) if n == base)
        raise ConfigError(f"{base}@{version} is not available; this noisecraft provides {known}")
    return _load(base, int(version))


def create(name: str, lang: str | None = None, **params: Any) -> NoiseModel:
    """A validated model; ``lang`` (the build's language) fills the model's own ``lang`` parameter
    when it has one and it is not given. A parameter the model does not declare is an error."""
    cls = model_class(name)
    declared = {spec.name for spec in cls.param_specs()}
    unknown = sorted(set(params) - declared)
    if unknown:
        accepted = ", ".join(sorted(declared)) or "no parameters"
        raise ConfigError(f"{cls.name}@{cls.version} takes no parameter {', '.join(map(repr, unknown))}; it takes: {accepted}")
    if lang is not None and "lang" in declared:
        params["lang"] = lang
    return cls(**params)


def chain(*models: NoiseModel) -> NoiseModel:
    """One model, or a :class:`NoiseChain` of several."""
    return models[0] if len(models) == 1 else NoiseChain(tuple(models))


# --- the text form ---------------------------------------------------------------------------

_NAME = re.compile(r"\s*([A-Za-z][\w-]*(?:@\d+)?)\s*")
_KEY = re.compile(r"\s*([A-Za-z_]\w*)\s*=\s*")
_BARE = re.compile(r"[^,()|'\"\s]+")


def _value(text: str, pos: int, where: str) -> tuple[str, int]:
    """A quoted ('...' or "...", backslash escapes) or bare value starting at ``pos``."""
    if pos < len(text) and text[pos] in "'\"":
        quote, out, pos = text[pos], [], pos + 1
        while pos < len(text) and text[pos] != quote:
            if text[pos] == "\\" and pos + 1 < len(text):
                pos += 1
            out.append(text[pos])
            pos += 1
        if pos >= len(text):
            raise ConfigError(f"{where}: unterminated quote")
        return "".join(out), pos + 1
    match = _BARE.match(text, pos)
    if not match:
        raise ConfigError(f"{where}: expected a value at position {pos + 1}")
    return match.group(), match.end()


def parse_step(text: str, where: str) -> tuple[str, dict[str, str]]:
    """``name@v(key=value, ...)`` -> (name, {key: value text})."""
    match = _NAME.match(text)
    if not match:
        raise ConfigError(f"{where}: expected a noise name, e.g. keyboard or 'keyboard(rate=0.1)'")
    name, pos, params = match.group(1), match.end(), {}
    if pos < len(text) and text[pos] == "(":
        pos += 1
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos < len(text) and text[pos] == ")":
                pos += 1
                break
            key = _KEY.match(text, pos)
            if not key:
                raise ConfigError(f"{where}: expected key=value at position {pos + 1}")
            if key.group(1) in params:
                raise ConfigError(f"{where}: parameter {key.group(1)!r} given twice")
            params[key.group(1)], pos = _value(text, key.end(), where)
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos < len(text) and text[pos] == ",":
                pos += 1
            elif pos >= len(text) or text[pos] != ")":
                raise ConfigError(f"{where}: expected ',' or ')' at position {pos + 1}")
    if text[pos:].strip():
        raise ConfigError(f"{where}: unexpected {text[pos:].strip()!r} after the noise")
    return name, params


def _split_steps(text: str) -> list[str]:
    """Split at ``|`` outside quotes."""
    steps, current, quote = [], [], None
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "|":
            steps.append("".join(current))
            current = []
            continue
        current.append(ch)
    steps.append("".join(current))
    return steps


def parse_noise(text: str, lang: str | None = None, data_dir: Path | None = None) -> NoiseModel:
    """A model (or chain) from its text form, e.g. ``"misspelling(dictionary=d/) | keyboard(rate=0.1)"``;
    relative file parameters are read under ``data_dir`` as :func:`files_under` says."""
    where = f"--noise {text!r}"
    models = [_create_for(name, lang, params, data_dir)
              for name, params in (parse_step(s, where) for s in _split_steps(text))]
    return chain(*models)


def noise_from_table(entry: Mapping[str, Any] | str, lang: str | None = None, data_dir: Path | None = None) -> NoiseModel:
    """A model from a recipe entry: the text form, ``{name = "keyboard", rate = 0.1}``, or
    ``{chain = [...]}`` of those (``data_dir`` as for :func:`parse_noise`)."""
    if isinstance(entry, str):
        return parse_noise(entry, lang, data_dir)
    if not isinstance(entry, Mapping):
        raise ConfigError(f"a noise must be a string or a table, got {entry!r}")
    if "chain" in entry:
        if set(entry) != {"chain"} or not isinstance(entry["chain"], list):
            raise ConfigError(f"a chain is {{chain = [step, step, ...]}}, got {dict(entry)!r}")
        return chain(*(noise_from_table(step, lang, data_dir) for step in entry["chain"]))
    if "name" not in entry:
        raise ConfigError(f"a noise table needs a 'name', got {dict(entry)!r}")
    params = {k: v for k, v in entry.items() if k != "name"}
    return _create_for(str(entry["name"]), lang, params, data_dir)


def files_under(cls: type[NoiseModel], params: dict[str, Any], data_dir: Path | None) -> dict[str, Any]:
    """``params`` of a ``cls`` model with its relative file parameters read under ``data_dir``: what ``--data-dir``
    means for the noise of recipes and ``--source`` builds alike.

    A ``source`` parameter (an original release file) is always under ``data_dir``, like a ``data_file``; any other
    parameter that may name a local file or folder (a dictionary, a layout file, a saved model) is taken from
    ``data_dir`` when it is there, else left as given (a Hub id, a built-in layout, a file relative to the folder the
    build runs in). Files enter the seed by their content, so where one is found never changes the output."""
    if data_dir is None:
        return params
    kinds = {spec.name: spec.file for spec in cls.param_specs()}
    resolved = dict(params)
    for name in cls.path_params() & set(params):
        value = params[name]
        if not isinstance(value, str) or not value or Path(value).expanduser().is_absolute():
            continue
        if kinds.get(name) == "source" or (data_dir / value).exists():
            resolved[name] = str(data_dir / value)
    return resolved


def _create_for(name: str, lang: str | None, params: dict[str, Any], data_dir: Path | None = None) -> NoiseModel:
    """:func:`create` for a text form or recipe entry that may also name ``lang`` (it must agree with the build's),
    its relative file parameters read under ``data_dir`` (:func:`files_under`)."""
    cls = model_class(name)
    params = files_under(cls, params, data_dir)
    if "lang" in params and "lang" not in {spec.name for spec in cls.param_specs()}:
        raise ConfigError(f"{cls.name}@{cls.version} takes no parameter 'lang'")
    given = params.pop("lang", None)
    if given is not None and lang is not None and given != lang:
        raise ConfigError(f"{name}: lang={given!r} is given, but the build is in {lang!r}")
    return create(name, lang if lang is not None else given, **params)


def _format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and not _BARE.fullmatch(value):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return str(value)


def format_noise(model: NoiseModel, shareable: bool = False, where: Callable[[str], str] | None = None) -> str:
    """The text form of a model: versioned, with every parameter that differs from its default.

    ``parse_noise(format_noise(m))`` gives a model with the same output (a keyboard's layout is
    written out, so the language no longer matters). With ``shareable`` (cards), a file parameter
    naming a local file or folder is written as its name (``shareable_params``): the card names the
    file, and the seed already holds its content digest. ``where`` (the card's regenerate command)
    writes each file parameter's value as it says instead (a path under the command's ``DATA``)."""
    if len(model.steps()) > 1:
        return " | ".join(format_noise(step, shareable, where) for step in model.steps())
    recorded = model.shareable_params() if shareable else model.params()
    if where is not None:
        files = model.path_params()
        recorded = {key: where(value) if key in files and isinstance(value, str) and value else value
                    for key, value in model.params().items()}
    parts = []
    for spec in model.param_specs():
        if spec.name in recorded and recorded[spec.name] != spec.default:
            parts.append(f"{spec.name}={_format_value(recorded[spec.name])}")
    return f"{model.noise_id}({', '.join(parts)})" if parts else model.noise_id

