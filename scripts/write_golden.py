"""Write (or check) a noise model's golden file from input records: never hand-write one.

    python scripts/write_golden.py tests/golden/keyboard@2.jsonl --inputs my-inputs.jsonl
    python scripts/write_golden.py tests/golden/keyboard@2.jsonl            # rewrite from its own inputs
    python scripts/write_golden.py tests/golden/keyboard@2.jsonl --check    # exit 1 if the file would change

Input records are JSON lines with ``noise`` (``NAME@V``, which must match the file name), ``params``, ``lang``,
``seed``, ``id``, ``field``, ``text`` and ``protected``; outputs in them are ignored and recomputed. Model
parameters ``tiny:<name>`` are the tests' tiny models (``tests/tiny_models.py``), built on the fly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("golden", type=Path, help="tests/golden/NAME@V.jsonl (written; its own inputs by default)")
    parser.add_argument("--inputs", type=Path, help="JSON lines of input records (default: the golden file itself)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file differs")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests"))
    from noisecraft.noise_models.golden import golden_lines

    from tiny_models import resolve_tiny  # the tests' tiny models: "tiny:<name>" parameters

    source = args.inputs or args.golden
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    wrong = [r["noise"] for r in records if r.get("noise") != args.golden.stem]
    if wrong:
        parser.error(f"{source}: record of {wrong[0]!r} in the golden file of {args.golden.stem!r}")
    text = golden_lines(records, resolve_tiny)
    if args.check:
        same = args.golden.exists() and args.golden.read_text(encoding="utf-8") == text
        print(f"{args.golden}: {'unchanged' if same else 'DIFFERS'}")
        return 0 if same else 1
    args.golden.write_text(text, encoding="utf-8")
    print(f"wrote {len(records)} records to {args.golden}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
