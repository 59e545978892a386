"""The recipe catalogue: one TOML file per published challenge set (``noisecraft recipes`` lists them;
``noisecraft build NAME`` builds one by name from any folder)."""
