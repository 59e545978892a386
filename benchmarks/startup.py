"""Start-up cost of the ``noisecraft`` command: CPU seconds (user + system) of a whole process.

Every command pays start-up before it does anything, and ``--help`` and ``noises`` are nothing but
start-up. Each command runs ``--repeat`` times in a fresh interpreter; the table shows the median and the
best run beside the figures measured before (issue 22: 0.09 s before the noise registry imported every
model to print their names, then 0.40 s for ``--help`` and 0.34 s for ``build --help``), and the bare
interpreter (``python -c pass``) as the floor. Median CPU time, not wall time: the build machine is
shared, and CPU time is what the command itself costs.

Usage: python benchmarks/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from noisecraft.core.stats import format_table

#: (command, previous CPU seconds or None, where the figure comes from)
COMMANDS = (
    (["-c", "pass"], None, "the interpreter alone"),
    (["-m", "noisecraft.cli", "--help"], 0.40, "issue 22 (0.09 s before the registry imported every model)"),
    (["-m", "noisecraft.cli", "build", "--help"], 0.34, "issue 22"),
    (["-m", "noisecraft.cli", "noises"], None, "imported every model, as --help did"),
    (["-m", "noisecraft.cli", "mine", "--help"], None, ""),
)


def cpu_seconds(args: list[str]) -> float:
    """User + system CPU seconds of one child process running ``python ARGS``."""
    before = os.times()
    subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs per command (default: %(default)s)")
    args = parser.parse_args()
    rows = []
    for command, previous, note in COMMANDS:
        runs = [cpu_seconds(command) for _ in range(args.repeat)]
        shown = "python " + " ".join(command).replace("-m noisecraft.cli", "noisecraft")
        rows.append((shown, f"{statistics.median(runs):.3f}", f"{min(runs):.3f}",
                     f"{previous:.2f}" if previous is not None else "-", note))
    print(format_table(("command", "CPU s (median)", "CPU s (best)", "before", "figure before"), rows))
    print(f"\n{args.repeat} runs each; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
