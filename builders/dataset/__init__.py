"""The challenge repo on disk and on the Hub: its folder and commit, its card, publishing.

Everything that writes a dataset folder goes through :mod:`~noisecraft.dataset.repo`; the card is rendered from the
manifest by :mod:`~noisecraft.dataset.card`; :mod:`~noisecraft.dataset.publish` verifies a folder and uploads it.
"""
