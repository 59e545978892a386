"""The package version, in a module of its own so that library modules (the repo manifest, the CLI, the
harness) can read it without importing the package face (``noisecraft/__init__``), which reaches the API."""

__version__ = "0.2.0"
