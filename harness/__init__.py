"""Evaluation of models on clean vs noisy pairs (``noisecraft evaluate``); imports the library, never the reverse."""
