"""Benchmark adapters: the Hub copy or a local file in the original release format -> rows.

Every adapter gives rows a stable string ``id`` and the same columns and features as the Hub
copy, so a challenge set built from a local file equals the one built from the Hub.
"""
