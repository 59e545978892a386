"""The package version (and the default version of a dataset it builds), in a module of its own so that
library modules (the repo manifest, the CLI, the harness) can read it without importing the package face
(``noisecraft/__init__``), which reaches the API."""

__version__ = "0.2.0"

#: Version of a dataset built or mined without a recipe or an explicit version.
DEFAULT_DATASET_VERSION = "1.0.0"
