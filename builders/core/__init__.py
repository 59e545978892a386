"""Primitives every layer shares: edit logs, words and tokens, per-example seeds, declared parameters, IOB tags,
labels, text files, noise dictionaries, column schemas, statistics, the Hub gate, citations and golden records.

Nothing here imports another part of noisecraft: ``core`` is the bottom layer.
"""
