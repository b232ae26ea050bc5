"""The adaptive difficulty controller, rule by rule (rlve_reference.md section b)."""

import collections
import json

import pytest

from rlve_jax.gym.scheduler import AdaptiveScheduler, Rollout, StaticScheduler


def rollouts(env, level, n, correct):
    return [Rollout(env, level, 1.0 if i < correct else 0.0) for i in range(n)]


def test_promotes_only_at_threshold_and_resets_either_way():
    s = AdaptiveScheduler(["A", "B"], min_samples=128)
    assert s.update(rollouts("A", 0, 127, 127)) == {}  # not enough samples yet
    assert s.tally["A"].num_samples == 127
    assert s.update(rollouts("A", 0, 1, 1)) == {"A": 1}  # 128 samples, accuracy 1.0
    assert s.tally["A"].num_samples == 0
    # Accuracy just below 0.9: no promotion, counters still reset.
    assert s.update(rollouts("A", 1, 128, 115)) == {} and s.upper["A"] == 1
    assert s.tally["A"].num_samples == 0
    # Exactly 0.9 promotes (>=).
    assert s.update(rollouts("A", 1, 130, 117)) == {"A": 2}
    assert s.upper["B"] == 0


def test_only_rollouts_at_the_upper_level_count():
    s = AdaptiveScheduler(["A"], initial_difficulty=3, min_samples=10)
    s.update(rollouts("A", 2, 50, 50) + rollouts("A", 1, 50, 50) + rollouts("Z", 3, 50, 50))
    assert s.tally["A"].num_samples == 0 and s.upper["A"] == 3
    s.update(rollouts("A", 3, 10, 9))
    assert s.upper["A"] == 4


def test_at_most_one_level_per_step_and_never_down():
    s = AdaptiveScheduler(["A"], min_samples=8)
    assert s.update(rollouts("A", 0, 1000, 1000)) == {"A": 1}
    s.update(rollouts("A", 1, 100, 0))
    assert s.upper["A"] == 1


def test_window_slides_and_levels_are_uniform():
    s = AdaptiveScheduler(["A"], window=4, min_samples=1, seed=3)
    seen = []
    for h in range(7):
        assert s.window_of("A") == (max(0, h - 3), h)
        counts = collections.Counter(s.sample().difficulty for _ in range(4000))
        assert set(counts) == set(range(max(0, h - 3), h + 1))
        assert max(counts.values()) / min(counts.values()) < 1.25
        seen.append(counts)
        s.update([Rollout("A", h, 1.0)])


def test_environments_uniform_and_seeds_unique():
    s = AdaptiveScheduler(["A", "B", "C"], seed=0)
    draws = [s.sample() for _ in range(3000)]
    assert [d.seed for d in draws] == list(range(3000))
    counts = collections.Counter(d.env for d in draws)
    assert all(900 < c < 1100 for c in counts.values())


def test_state_round_trips_through_json_and_resumes_exactly():
    s = AdaptiveScheduler(["A", "B"], min_samples=4, seed=11)
    for _ in range(5):
        draws = [s.sample() for _ in range(6)]
        s.update([Rollout(d.env, d.difficulty, 1.0) for d in draws])
    state = json.loads(json.dumps(s.state_dict()))
    resumed = AdaptiveScheduler(["A", "B"], min_samples=4, seed=999)
    resumed.load_state_dict(state)
    assert [resumed.sample() for _ in range(50)] == [s.sample() for _ in range(50)]
    assert resumed.state_dict() == s.state_dict()
    with pytest.raises(ValueError):
        AdaptiveScheduler(["A", "C"]).load_state_dict(state)


def test_static_scheduler_never_moves():
    s = StaticScheduler(["A"], lo=2, hi=5)
    assert {s.sample().difficulty for _ in range(500)} == {2, 3, 4, 5}
    assert s.update(rollouts("A", 5, 1000, 1000)) == {} and s.window_of("A") == (2, 5)
    clone = StaticScheduler(["A"], lo=2, hi=5)
    clone.load_state_dict(json.loads(json.dumps(s.state_dict())))
    assert clone.sample() == s.sample()


def test_bad_arguments():
    with pytest.raises(ValueError):
        AdaptiveScheduler([])
    with pytest.raises(ValueError):
        AdaptiveScheduler(["A", "A"])
    with pytest.raises(ValueError):
        StaticScheduler(["A"], lo=3, hi=1)


def test_never_promoted_past_the_top_level_and_logged_once(caplog):
    s = AdaptiveScheduler(["A", "B"], min_samples=4, max_levels={"A": 2, "B": None})
    caplog.set_level("INFO", logger="rlve_jax.gym.scheduler")
    for step in range(6):
        s.update(rollouts("A", s.upper["A"], 4, 4) + rollouts("B", s.upper["B"], 4, 4))
    assert s.upper == {"A": 2, "B": 6} and s.topped_out("A") and not s.topped_out("B")
    assert s.window_of("A") == (0, 2) and max(s.sample().difficulty for _ in range(200)) <= 6
    assert [r.getMessage() for r in caplog.records] == ["A reached its top level 2: no promotion past it"]
    assert s.tally["A"].num_samples == 0  # counters still reset at the top


def test_top_levels_cap_the_initial_level_the_static_range_and_a_loaded_state():
    s = AdaptiveScheduler(["A", "B"], initial_difficulty=5, max_levels={"A": 3})
    assert s.upper == {"A": 3, "B": 5}
    static = StaticScheduler(["A", "B"], lo=2, hi=6, max_levels={"A": 4})
    assert static.window_of("A") == (0, 4) and static.window_of("B") == (2, 6)
    state = AdaptiveScheduler(["A", "B"], initial_difficulty=9).state_dict()
    s.load_state_dict(state)
    assert s.upper == {"A": 3, "B": 9}
    # The state keeps its shape: the top levels come from the environments, not the checkpoint.
    assert set(s.state_dict()) == {"kind", "upper", "tally", "problem_seed", "rng"}


def test_problem_seeds_start_in_the_run_seeds_own_block():
    from rlve_jax.gym.scheduler import SEED_STRIDE, first_problem_seed, make_scheduler
    from rlve_jax.rl.warm_start import SEED_OFFSET, draws

    assert first_problem_seed(0) == 0  # seed 0 keeps the stream 0, 1, 2, ...
    for kind in ("adaptive", "static"):
        schedulers = {run: make_scheduler(kind, ["A"], seed=run) for run in (0, 1, 7)}
        seeds = {run: [s.sample().seed for _ in range(3)] for run, s in schedulers.items()}
        assert seeds == {run: [run * SEED_STRIDE + i for i in range(3)] for run in (0, 1, 7)}
    # two runs' streams never meet, and the warm start's stream sits apart from its run's RL stream
    assert next(draws(["A"], 0, 7))[2] == 7 * SEED_STRIDE + SEED_OFFSET
    assert SEED_OFFSET < SEED_STRIDE
    with pytest.raises(ValueError, match=">= 0"):
        first_problem_seed(-1)
