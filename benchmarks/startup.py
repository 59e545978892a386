"""Start-up cost of the ``noisecraft`` command: CPU seconds (user + system) of a whole process.

Every command pays start-up before it does anything, and ``--help`` and ``noises`` are nothing but
start-up. Each command runs ``--repeat`` times in a fresh interpreter; the table shows the median and the
best run, with the bare interpreter (``python -c pass``) as the floor. Median CPU time, not wall time: the build machine is
shared, and CPU time is what the command itself costs.

Usage: python benchmarks/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from results_page import publish

#: The commands timed: the interpreter alone, then what runs on every start of the CLI.
COMMANDS = (["-c", "pass"], ["-m", "noisecraft.cli", "--help"], ["-m", "noisecraft.cli", "build", "--help"],
            ["-m", "noisecraft.cli", "noises"], ["-m", "noisecraft.cli", "mine", "--help"])


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
    for command in COMMANDS:
        runs = [cpu_seconds(command) for _ in range(args.repeat)]
        shown = "python " + " ".join(command).replace("-m noisecraft.cli", "noisecraft")
        rows.append((shown, f"{statistics.median(runs):.3f}", f"{min(runs):.3f}"))
    print(publish("startup", ("command", "CPU s (median)", "CPU s (best)"), rows,
                  notes=f"{args.repeat} runs each: user + system CPU time of the whole process."))
    print(f"\n{args.repeat} runs each; {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
