"""Curricula as plug-ins (rlve_jax/gym/scheduler): the learnability and Thompson samplers against hand-computed small
cases, exact resume, the registry and its config keys, the steered over-sampling budget, the same draws in the
trainer and the gym service for the same verdicts, and a short tiny run with `scheduler.kind=thompson`."""

import collections
import json

import numpy as np
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from rlve_jax import defaults
from rlve_jax.gym import registry
from rlve_jax.gym.scheduler import (KINDS, AdaptiveScheduler, LearnabilityScheduler, Rollout, SchedulerSettings,
                                    StaticScheduler, ThompsonScheduler, steered_draws)
from rlve_jax.gym.scheduler.cells import selection_probabilities
from rlve_jax.gym.serve import create_app, parse_args, scheduler_settings
from rlve_jax.gym.serve_service import GymService
from rlve_jax.gym.serve_state import StateStore
from rlve_jax.rl.collector import Collection, GroupRecords
from rlve_jax.rl.rollout import RolloutStats
from serve_for_tests import answer

CELLS = dict(max_level=2, decay=0.5, prior_count=2.0, seed=0)


def frequencies(scheduler, env="A", n=6000) -> list[float]:
    counts = collections.Counter(scheduler.sample().difficulty for _ in range(n))
    return [counts[level] / n for level in range(scheduler.cell_count[env])]


def group(level, accuracies, group_id, env="A"):
    return [Rollout(env, level, float(a), group_id) for a in accuracies]


# ---------------------------------------------------------------------------
# The samplers, by hand


def test_learnability_draws_levels_in_proportion_to_p_times_one_minus_p():
    s = LearnabilityScheduler(["A"], explore=0.0, **CELLS)
    assert s.probabilities("A") == pytest.approx([1 / 3] * 3)  # unseen cells: p = 1/2 everywhere
    # Level 0: 4 of 4 right -> p = (4 + 1) / (4 + 2) = 5/6, weight 5/36; level 1: 2 of 4 -> p = 1/2, weight 9/36;
    # level 2 unseen: 9/36. Rollouts of another environment or past the cells are ignored.
    assert s.update(group(0, [1, 1, 1, 1], 0) + group(1, [1, 0, 1, 0], 1) + group(5, [1, 0], 2)
                    + group(0, [0, 0], 3, env="Z")) == {}
    assert s.evidence["A"] == [[4, 0], [2, 2], [0, 0]]
    assert s.probabilities("A") == pytest.approx([5 / 23, 9 / 23, 9 / 23])
    assert frequencies(s) == pytest.approx([5 / 23, 9 / 23, 9 / 23], abs=0.02)
    assert s.levels() == {"A": round(27 / 23, 2)}
    # A group of 2 at level 0 is informative with probability 1 - E[p^2] - E[(1-p)^2] under Beta(5, 1):
    # 1 - 5/7 - 1/21 = 5/21.
    assert s.informative_probability("A", 0, 2) == pytest.approx(5 / 21)
    # The next update halves the old evidence first: [[2, 0], [1, 1], [0, 0]] -> p = 3/4, 1/2, 1/2.
    s.update([])
    assert s.evidence["A"] == [[2, 0], [1, 1], [0, 0]]
    assert s.probabilities("A") == pytest.approx([3 / 11, 4 / 11, 4 / 11])
    # explore: that share spread evenly over the cells.
    s.explore = 0.3
    assert s.probabilities("A") == pytest.approx([0.7 * 3 / 11 + 0.1, 0.7 * 4 / 11 + 0.1, 0.7 * 4 / 11 + 0.1])


def test_thompson_counts_informative_groups_and_draws_the_best_posterior_sample():
    s = ThompsonScheduler(["A"], **{**CELLS, "max_level": 1})
    # Groups are named by id, not by position: their responses arrive interleaved.
    g0, g1, g2, g3 = group(0, [1, 0], 10), group(0, [0, 1, 1], 11), group(1, [0, 0], 12), group(1, [1, 1], 13)
    s.update([r for pair in zip(g0 + g1, g2 + g3) for r in pair] + g1[2:])
    assert s.evidence["A"] == [[2, 0], [0, 2]]  # two informative groups at 0, two uniform ones at 1
    # P(Beta(3, 1) sample > Beta(1, 3) sample) = 1 - 3 B(3, 4) = 1 - 3 * 2! 3! / 6! = 0.95
    assert s.probabilities("A") == pytest.approx([0.95, 0.05], abs=1e-4)
    assert frequencies(s, n=4000) == pytest.approx([0.95, 0.05], abs=0.012)
    assert s.levels() == {"A": 0.05}
    assert s.informative_probability("A", 0, 16) == 0.75  # the posterior mean, Beta(3, 1)
    # A response without a group is a group of its own (of one: never informative); evidence decays by half.
    s.update([Rollout("A", 1, 1.0), Rollout("A", 1, 0.0)])
    assert s.evidence["A"] == [[1, 0], [0, 3]]


def test_selection_probabilities_hand_cases():
    assert selection_probabilities([(1, 1), (2, 1)]) == pytest.approx([1 / 3, 2 / 3], abs=1e-6)  # P(U < V), V ~ 2x
    assert selection_probabilities([(1, 1)] * 3) == pytest.approx([1 / 3] * 3)
    assert selection_probabilities([(4, 7)]) == [1.0]


def test_cells_stop_at_the_top_level_or_max_level():
    s = ThompsonScheduler(["A", "B", "C"], **{**CELLS, "max_level": 5}, max_levels={"A": 2, "B": 9})
    assert s.cell_count == {"A": 3, "B": 6, "C": 6}
    assert {s.sample().difficulty for _ in range(300)} == set(range(6))
    with pytest.raises(ValueError, match="decay"):
        ThompsonScheduler(["A"], **{**CELLS, "decay": 0.0})
    with pytest.raises(ValueError, match="explore"):
        LearnabilityScheduler(["A"], explore=1.0, **CELLS)


# ---------------------------------------------------------------------------
# State, registry, config


@pytest.mark.parametrize("kind", KINDS)
def test_a_state_dict_round_trip_mid_run_gives_the_same_draws(kind):
    settings = SchedulerSettings(kind, min_samples=4, max_level=3, decay=0.8, seed=11)
    scheduler = settings.build(["A", "B"])

    def step():
        draws = [scheduler.sample() for _ in range(6)]
        scheduler.update([Rollout(d.env, d.difficulty, float((d.seed + g) % 3 == 0), group=i)
                          for i, d in enumerate(draws) for g in range(4)])

    for _ in range(5):
        step()
    resumed = SchedulerSettings(kind, min_samples=4, max_level=3, decay=0.8, seed=999).build(["A", "B"])
    resumed.load_state_dict(json.loads(json.dumps(scheduler.state_dict())))
    assert [resumed.sample() for _ in range(50)] == [scheduler.sample() for _ in range(50)]
    assert resumed.state_dict() == scheduler.state_dict() and resumed.levels() == scheduler.levels()
    with pytest.raises(ValueError, match="does not match"):
        SchedulerSettings(kind).build(["A", "C"]).load_state_dict(scheduler.state_dict())
    other = next(k for k in KINDS if k != kind)
    with pytest.raises(ValueError, match="does not match"):
        SchedulerSettings(other).build(["A", "B"]).load_state_dict(scheduler.state_dict())


def test_a_changed_top_level_trims_or_pads_the_loaded_cells(caplog):
    saved = LearnabilityScheduler(["A", "B"], explore=0.0, **CELLS)
    saved.update(group(2, [1, 0], 0) + group(1, [1, 0], 1, env="B"))
    resumed = LearnabilityScheduler(["A", "B"], explore=0.0, **{**CELLS, "max_level": 4}, max_levels={"A": 1})
    resumed.load_state_dict(saved.state_dict())
    assert resumed.evidence == {"A": [[0, 0], [0, 0]], "B": [[0, 0], [1, 1], [0, 0], [0, 0], [0, 0]]}
    assert "the checkpoint has 3 level cells, this scheduler 2" in caplog.text


def test_the_registry_and_the_config_keys():
    assert KINDS == ("adaptive", "static", "learnability", "thompson")
    built = {kind: SchedulerSettings(kind).build(["A"]) for kind in KINDS}
    assert [type(s) for s in built.values()] == [AdaptiveScheduler, StaticScheduler, LearnabilityScheduler,
                                                 ThompsonScheduler]
    with pytest.raises(ValueError, match="one of"):
        SchedulerSettings("bandit").build(["A"])
    config = defaults.base_config()
    config.scheduler.update(kind="learnability", max_level=6, decay=0.7, prior_count=4.0, explore=0.1)
    defaults.validate(config)
    scheduler = defaults.settings(config).scheduler.build(["A"])
    assert (type(scheduler), scheduler.cell_count, scheduler.decay, scheduler.prior_count, scheduler.explore) == (
        LearnabilityScheduler, {"A": 7}, 0.7, 4.0, 0.1)
    for key, value in (("scheduler.kind", "bandit"), ("scheduler.decay", 0.0), ("scheduler.decay", 1.5),
                       ("scheduler.explore", 1.0), ("scheduler.prior_count", 0.0), ("scheduler.max_level", -1)):
        bad = defaults.base_config()
        bad.update_from_flattened_dict({key: value})
        with pytest.raises(defaults.ConfigError, match=key.replace(".", r"\.")):
            defaults.validate(bad)
    steered = defaults.base_config()
    steered.rollout.steered_oversampling = True
    with pytest.raises(defaults.ConfigError, match="steered_oversampling"):
        defaults.validate(steered)  # adaptive has no estimate of informative groups
    steered.scheduler.kind = "thompson"
    defaults.validate(steered)
    assert defaults.settings(steered).collector.steered_oversampling


def test_the_service_flags_are_the_settings():
    base = ["--collection", "C4", "--state", "x"]
    assert scheduler_settings(parse_args(base)) == SchedulerSettings()
    flags = ["--scheduler", "thompson", "--max-level", "5", "--decay", "0.8", "--prior-count", "3", "--explore", "0.2"]
    assert scheduler_settings(parse_args(base + flags)) == SchedulerSettings(
        "thompson", max_level=5, decay=0.8, prior_count=3.0, explore=0.2)


# ---------------------------------------------------------------------------
# The steered over-sampling budget


def test_steered_draws_stop_once_the_expected_informative_groups_fill_the_batch():
    s = LearnabilityScheduler(["A"], explore=0.0, **{**CELLS, "max_level": 0})
    plain = LearnabilityScheduler(["A"], explore=0.0, **{**CELLS, "max_level": 0})
    # Unseen, a group of 2 is informative with probability 1/3 (variance 2/9): n draws expect n/3 informative
    # groups; n/3 - sqrt(2n/9) >= 2 first holds at n = 11.
    draws = steered_draws(s, need=2, budget=16, group_size=2)
    assert draws == [plain.sample() for _ in range(11)]  # the scheduler's own draws, in order
    assert len(steered_draws(s, need=2, budget=8, group_size=2)) == 8  # never past the plain budget
    assert len(steered_draws(s, need=1, budget=16, group_size=16)) == 2  # 1 - 2/17 each: two draws
    with pytest.raises(TypeError, match="learnability, thompson"):
        steered_draws(AdaptiveScheduler(["A"]), need=2, budget=16, group_size=2)


def test_the_collector_draws_a_steered_round():
    """The fake generator answers seeds 1 mod 3 with mixed groups (test_collector.py): one round of the steered budget
    fills the batch of 3 with 8 draws, where the plain budget draws 16."""
    from test_collector import collector

    plain, steered = collector(oversample_prompts=16), collector(oversample_prompts=16, steered_oversampling=True)
    for c in (plain, steered):
        c.scheduler = LearnabilityScheduler(["A"], explore=0.0, **{**CELLS, "max_level": 0})
    # Unseen, a group of G = 4 is informative with probability 1 - 2 E[p^4] = 1 - 2/5: the expected count less one
    # standard deviation, 0.6 n - sqrt(0.24 n), first reaches 3 at n = 8.
    assert [(c.stats.drawn_groups, c.kept.tolist()) for c in (plain.take(0, "p"), steered.take(0, "p"))] == [
        (16, [1, 4, 7]), (8, [1, 4, 7])]


# ---------------------------------------------------------------------------
# The trainer and the service: the same draws for the same verdicts


def trainer_collection(problems, accuracies, names) -> Collection:
    """The records the trainer's collector would hold for these groups (one row per problem)."""
    n, g = len(problems), len(accuracies[0])
    records = GroupRecords(
        owner=np.zeros(n, np.int32), env=np.array([names.index(p["env"]) for p in problems], np.int32),
        difficulty=np.array([p["difficulty"] for p in problems], np.int32), prompt_length=np.ones(n, np.int32),
        informative=np.ones(n, bool), passes=np.ones(n, bool), reward=np.zeros((n, g)),
        accuracy=np.array(accuracies, bool), format_ok=np.ones((n, g), bool), length=np.ones((n, g), np.int32),
        truncated=np.zeros((n, g), bool))
    return Collection([], records, np.arange(n), RolloutStats(), {})


@pytest.mark.parametrize("kind", ["learnability", "thompson"])
def test_service_draws_follow_the_trainers_scheduler_for_the_same_verdicts(tmp_path, kind):
    """Each step: the service and the trainer's scheduler draw the same problems; G responses per problem are verified
    in one request (interleaved across problems), and the trainer's update from the same verdicts (one record row per
    problem) leaves the same state."""
    names, g = registry.resolve("C4"), 3
    config = defaults.base_config()
    config.scheduler.update(kind=kind, max_level=3, decay=0.8)
    config.seed = 3
    settings = defaults.settings(config).scheduler
    local = settings.build(names, {n: e.max_difficulty for n, e in zip(names, registry.make_all(names))})
    service = GymService(tmp_path / "state", "C4", settings, "chat", workers=2, timeout_s=10.0)
    with TestClient(create_app(service)) as client:
        for step in range(4):
            drawn = client.post("/draw", json={"n": 6, "request_id": f"draw-{step}"}).json()["problems"]
            assert [(p["env"], p["difficulty"], p["seed"]) for p in drawn] == [tuple(local.sample()) for _ in range(6)]
            items = [{"problem_id": p["problem_id"], "response": answer(p, (p["seed"] + k * step) % (k + 2) == 0)}
                     for k in range(g) for p in drawn]  # response k of every problem, then response k + 1
            result = client.post("/verify", json={"request_id": f"verify-{step}", "items": items}).json()
            accuracy = np.array([v["accuracy"] for v in result["verdicts"]]).reshape(g, len(drawn)).T  # [problem, k]
            assert result["promoted"] == local.update(trainer_collection(drawn, accuracy, names).rollouts(names)) == {}
            assert client.get("/scheduler").json() == json.loads(json.dumps(local.state_dict()))
        evidence = [cell for cells in local.evidence.values() for cell in cells]
        assert all(any(cell[side] > 0 for cell in evidence) for side in (0, 1))  # both outcomes were counted
        env = names[0]
        view = client.get(f"/env/{env}").json()
        assert view["difficulty"] == local.levels()[env] and len(view["levels"]) == local.cell_count[env]
        assert sum(level["probability"] for level in view["levels"]) == pytest.approx(1.0)
        families = {f.name: f for f in text_string_to_metric_families(client.get("/metrics").text)}
        assert {s.labels["env"]: s.value for s in families["rlve_difficulty"].samples} == local.levels()
    # A state written before the curricula's settings existed restarts with their defaults.
    with StateStore(tmp_path / "state") as store:
        stored = store.get_meta("settings")
        stored["scheduler"] = {k: v for k, v in stored["scheduler"].items() if k != "prior_count"}
        store.set_meta("settings", stored)
    restarted = GymService(tmp_path / "state", "C4", settings, "chat", workers=2, timeout_s=10.0)
    try:
        assert restarted.scheduler.state_dict() == local.state_dict()
    finally:
        restarted.close()


# ---------------------------------------------------------------------------
# The tiny config with Thompson sampling and the steered budget


def test_tiny_run_with_thompson_sampling_and_the_steered_budget(tmp_path):
    from test_trainer import final_state, run_main

    run_main(tmp_path, "--config.scheduler.kind=thompson", "--config.rollout.steered_oversampling=True")
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in records if r["kind"] == "train"]
    assert [r["step"] for r in train] == [0, 1, 2, 3, 4]
    levels = [r["difficulty/IntegerFactorizationCounting"] for r in train]
    assert levels[0] == 4.5 and all(0 <= level <= 9 for level in levels)  # uniform over 10 cells, then learned
    assert all(1 <= r["rollout/drawn_groups"] <= 3 * 2 for r in train[1:])  # oversample 3, 2 rounds at most
    step, _, scheduler = final_state(tmp_path)
    assert step == 4 and scheduler["kind"] == "thompson"
    assert sum(sum(cell) for cell in scheduler["evidence"]["IntegerFactorizationCounting"]) > 0
