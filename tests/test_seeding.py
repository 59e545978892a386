"""Per-example seeding: stable across runs and Python versions, independent per field."""

from hypothesis import given
from hypothesis import strategies as st

from noisecraft.seeding import ExampleRng, derive_seed, example_rng, example_rngs, params_digest


def test_derive_seed_is_a_fixed_function_of_its_inputs():
    # Golden value: changing the derivation would silently change every published set.
    assert derive_seed(0, "keyboard@1", "abc", "q1", "question") == 128951693751710206784937244310896785772


def test_every_input_changes_the_seed():
    base = ("keyboard@1", "abc", "q1", "question")
    seeds = {
        derive_seed(0, *base),
        derive_seed(1, *base),
        derive_seed(0, "swap@1", "abc", "q1", "question"),
        derive_seed(0, "keyboard@1", "abd", "q1", "question"),
        derive_seed(0, "keyboard@1", "abc", "q2", "question"),
        derive_seed(0, "keyboard@1", "abc", "q1", "context"),
    }
    assert len(seeds) == 6


def test_fields_do_not_run_together():
    assert derive_seed(0, "n", "d", "ab", "c") != derive_seed(0, "n", "d", "a", "bc")


def test_params_digest_ignores_key_order():
    assert params_digest({"rate": 0.25, "mode": "x"}) == params_digest({"mode": "x", "rate": 0.25})
    assert params_digest({"rate": 0.25}) != params_digest({"rate": 0.3})


@given(st.integers(min_value=0, max_value=2**64), st.text(), st.text())
def test_same_inputs_same_stream(seed, example_id, field):
    a = example_rng(seed, "keyboard@1", "d", example_id, field)
    b = example_rng(seed, "keyboard@1", "d", example_id, field)
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]


@given(st.integers(min_value=0, max_value=2**128), st.integers(min_value=1, max_value=10_000))
def test_below_stays_in_range(seed, n):
    rng = ExampleRng(seed)
    assert all(0 <= rng.below(n) < n for _ in range(20))


@given(st.integers(min_value=0), st.lists(st.integers(), max_size=30))
def test_shuffle_is_a_permutation(seed, items):
    shuffled = list(items)
    ExampleRng(seed).shuffle(shuffled)
    assert sorted(shuffled) == sorted(items)


@given(st.integers(min_value=0, max_value=2**64), st.lists(st.text(), max_size=5), st.text())
def test_batch_derivation_gives_each_examples_own_stream(seed, example_ids, field):
    # example_rngs hashes the shared prefix once; it must equal one example_rng per id, draw for draw.
    batch = example_rngs(seed, "keyboard@2", "d", example_ids, field)
    for example_id, rng in zip(example_ids, batch, strict=True):
        single = example_rng(seed, "keyboard@2", "d", example_id, field)
        assert [rng.random() for _ in range(3)] == [single.random() for _ in range(3)]


def test_lazy_generator_draws_pythons_mersenne_twister_stream():
    import random

    for seed in (0, 7, 2**64 + 3, derive_seed(0, "keyboard@2", "d", "q", "question")):
        rng, reference = ExampleRng(seed), random.Random(seed)
        assert [rng.random() for _ in range(1000)] == [reference.random() for _ in range(1000)]  # past one twist


def test_batch_seeding_extension_draws_pythons_streams():
    # noisecraft._twister seeds four 4-word keys interleaved and every other key alone; both must be
    # random.Random's stream for int.from_bytes(key, "big"), past the first twist (312 draws).
    import random

    import pytest

    twister = pytest.importorskip("noisecraft._twister")
    source = random.Random(22)
    seeds = [source.getrandbits(128) for _ in range(41)] + [0, 1, 2**32, 2**96 - 1, 2**96, 2**127, 2**128 - 1, 2**200 + 5]
    keys = [s.to_bytes(max(1, (s.bit_length() + 7) // 8), "big") for s in seeds]
    keys += [b"\x00" * 16, b"\x00" * 4 + (7).to_bytes(12, "big"), b""]  # leading zero words count as absent
    seeds += [0, 7, 0]
    for seed, made in zip(seeds, twister.twisters(keys), strict=True):
        reference = random.Random(seed)
        assert [made.random() for _ in range(700)] == [reference.random() for _ in range(700)], seed


def test_batch_seeding_with_and_without_the_extension_is_the_same(monkeypatch):
    import noisecraft.seeding as seeding

    ids = [f"q{i}" for i in range(13)]  # not a multiple of four: the last seeds take the one-seed path
    fast = seeding.example_rngs(5, "keyboard@2", "d", ids, "question")
    monkeypatch.setattr(seeding, "_twisters", None)
    plain = seeding.example_rngs(5, "keyboard@2", "d", ids, "question")
    for a, b in zip(fast, plain, strict=True):
        assert [a.random() for _ in range(400)] == [b.random() for _ in range(400)]


def _mixed_draws(rng, plan):
    """Draws from ``rng`` by ``plan``: ('r', count) that many random(), ('c', items) one choice."""
    out = []
    for step in plan:
        if step[0] == "r":
            out += [rng.random() for _ in range(step[1])]
        else:
            out.append(rng.choice(step[1]))
    return out


PLANS = st.lists(st.one_of(st.tuples(st.just("r"), st.integers(min_value=0, max_value=60)),
                           st.tuples(st.just("c"), st.sampled_from([(1, 2, 3), ["a", "b"], "xyz", range(7), ("z",)]))),
                 max_size=40)


@given(st.integers(min_value=0, max_value=2**64), st.lists(st.text(max_size=8), min_size=1, max_size=9), PLANS)
def test_extension_choice_and_buffered_draws_are_the_python_ones(seed, example_ids, plan):
    # SeededRng does choice in C, and serves the first 48 draws from a buffer before seeding a full
    # state again: every mix of calls must draw exactly what the pure-Python ExampleRng of the same seed draws.
    import pytest

    import noisecraft.seeding as seeding

    if seeding._twisters is None:
        pytest.skip("noisecraft._twister is not built")
    fast = seeding.example_rngs(seed, "keyboard@2", "d", example_ids, "question")
    for example_id, rng in zip(example_ids, fast, strict=True):
        assert isinstance(rng, seeding.SeededRng)
        plain = example_rng(seed, "keyboard@2", "d", example_id, "question")
        assert _mixed_draws(rng, plan) == _mixed_draws(plain, plan)
        assert [rng.random() for _ in range(60)] == [plain.random() for _ in range(60)]


def test_extension_generators_refuse_bad_arguments():
    import pytest

    twister = pytest.importorskip("noisecraft._twister")
    made = twister.twisters([b"\x01\x02\x03\x04" * 4])[0]
    with pytest.raises(TypeError):
        made.choice(5)
    with pytest.raises(IndexError):
        made.choice(())
    with pytest.raises(TypeError, match="Twister or a subclass"):
        twister.twisters([b"\x01"], int)
    with pytest.raises(TypeError, match="cannot create"):
        twister.Twister()
