"""The benchmark scripts' tables as data files that the documentation's results page renders.

``publish(name, header, rows, command=...)`` writes ``docs/results/<name>.json`` (the table, the command that
made it, the machine and the date) and returns the table as text for the script to print, so the figures on
the site are the ones a run produced, never typed by hand. ``NOISECRAFT_NO_RESULTS=1`` keeps a trial run
from replacing the published file.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from noisecraft.core.stats import format_table

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"


def machine() -> str:
    """This machine in words: CPU model and count, GPU when torch sees one, and the load when the run ended."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    words = f"{cpu}, {os.cpu_count()} CPUs"
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        words += f", {sys.modules['torch'].cuda.get_device_name(0)}"
    return f"{words}, load average {os.getloadavg()[0]:.1f}"


def publish(name: str, header: Sequence[str], rows: Sequence[Sequence[Any]], *, command: str | None = None,
            notes: str = "", markdown: bool = False) -> str:
    """Write ``docs/results/NAME.json`` and return the table as :func:`format_table` prints it."""
    if os.environ.get("NOISECRAFT_NO_RESULTS") != "1":
        RESULTS.mkdir(parents=True, exist_ok=True)
        data = {"command": command or "python " + " ".join(["benchmarks/" + Path(sys.argv[0]).name, *sys.argv[1:]]),
                "machine": machine(), "date": datetime.now(UTC).strftime("%Y-%m-%d"),
                "header": list(header), "rows": [[str(cell) for cell in row] for row in rows], "notes": notes}
        (RESULTS / f"{name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return format_table(header, rows, markdown=markdown)
