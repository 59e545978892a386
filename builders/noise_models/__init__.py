"""Noise models: batch-first pure functions ``apply(batch: NoiseInput) -> list[Noised]`` (see :mod:`.record`).

Look models up by registry name with :func:`noisecraft.noise_models.registry.create`.
"""
