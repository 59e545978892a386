"""noisecraft builders: clean benchmark + noise model + seed -> shareable challenge set.

Importing this package is cheap (no torch, no datasets): the CLI and the rule-based
noise models must stay usable on a bare install.
"""

__version__ = "0.1.0"
