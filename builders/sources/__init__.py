"""Sources: the benchmark adapters (the Hub copy or a local file in the original release format -> rows) and the
generic sources (any CSV, TSV, JSONL or Parquet table, or any Hub dataset, with a declared layout: :mod:`.table`).

Every adapter gives rows a stable string ``id`` and the same columns and features as the Hub
copy, so a challenge set built from a local file equals the one built from the Hub.
"""
