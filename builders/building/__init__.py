"""The build: plan a config, read its source, noise its rows, measure them and write them.

:mod:`~noisecraft.build.pipeline` runs the stages; :mod:`~noisecraft.build.noising` is the pure per-shard heart
that the engines (:mod:`~noisecraft.build.executors`, :mod:`~noisecraft.build.workers`) map over shards;
:mod:`~noisecraft.build.recipe` turns a TOML recipe into config requests.
"""
