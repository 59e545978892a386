"""noisecraft mining: real corpora -> natural-noise dictionaries.

Miners are pure functions from one input (a dump file, a tweet CSV, a misspelling list) to rows
in the dictionary format of :mod:`noisecraft.dataset.noise_dictionary`, plus a merge step; ``noisecraft
mine`` writes the result as a Hub dataset repo on disk with a card.
"""
