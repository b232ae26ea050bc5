"""The adaptive-vs-static miniature's bookkeeping: static-oracle's twin, the go/no-go per seed, static-high's
rule, the held-out deduplication, the config hash of a run directory, and the intervals."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))

import adaptive_vs_static as avs  # noqa: E402

from rlve_jax.defaults import experiment  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.scheduler import first_problem_seed  # noqa: E402


def probe_rows(accuracy, ratio):
    """Synthetic go/no-go rows: per probed level (accuracy, informative ratio, distinct responses)."""
    return {level: (accuracy[level], ratio[level], 4.0) for level in avs.PROBE_LEVELS}


PROMOTABLE = probe_rows([0.99, 0.94, 0.82, 0.61, 0.03, 0, 0, 0, 0, 0], [0.1, 0.3, 0.6, 0.8, 0.2, 0.0, 0, 0, 0, 0])


def test_static_oracle_reuses_identical_runs_only():
    assert avs.oracle_twin(0) == "adaptive"  # h never left 0: adaptive trained on [0, 0]
    assert avs.oracle_twin(avs.STATIC_LOW[1]) == "static-low"
    assert avs.oracle_twin(avs.STATIC_LOW[1] + 1) is None


def test_the_frontier_runs_from_the_first_unmastered_level_to_the_last_sometimes_solved():
    assert avs.frontier_levels([PROMOTABLE]) == (2, 3)  # 0.82, 0.61; level 4's 0.03 is below 0.05
    strong = probe_rows([1.0, 0.98, 0.93, 0.82, 0.08, 0, 0, 0, 0, 0], [0.0] * 10)
    assert avs.frontier_levels([strong]) == (3, 4)
    assert avs.frontier_levels([PROMOTABLE, strong]) == (2, 4)  # the mean over warm starts: .91 .71 .06 at 2-4
    cliff = probe_rows([1.0, 1.0, 0.0] + [0.0] * 7, [0.0] * 10)
    assert avs.frontier_levels([cliff]) == (2, 2)


def test_go_no_go_passes_a_promotable_warm_start_and_names_each_failure():
    assert avs.go_no_go(PROMOTABLE, (2, 3), (5, 8)) == []
    weak = probe_rows([0.74, 0.39, 0.2, 0.1, 0, 0, 0, 0, 0, 0], [0.75, 0.75, 0.5, 0.4, 0, 0, 0, 0, 0, 0])
    assert [f.split(" < ")[0] for f in avs.go_no_go(weak, (2, 3), (5, 8))] == ["T = 1 accuracy 0.74",
                                                                              "T = 1 accuracy 0.39"]
    flat = probe_rows([1.0] * 10, [0.0] * 10)  # nothing left to learn, nothing informative
    assert avs.go_no_go(flat, (2, 3), (5, 8)) == ["informative ratio < 0.3 at every level of the frontier [2, 3]"]
    assert avs.go_no_go(PROMOTABLE, (2, 3), (4, 7)) == []  # mean ratio over [4, 7]: 0.05
    guessable = probe_rows([0.99, 0.94, 0.82, 0.61] + [0.3] * 6, [0.1, 0.3, 0.6, 0.8] + [0.5] * 6)
    assert avs.go_no_go(guessable, (2, 3), (5, 8)) == ["static-high's mean ratio 0.50 > 0.1"]


def test_static_high_is_the_lowest_range_whose_start_is_uninformative_on_every_seed():
    assert avs.choose_static_high([PROMOTABLE], above=3) == (5, 8)  # level 4's ratio 0.2 is not ~0
    other = probe_rows([0.99, 0.94, 0.82, 0.61, 0.0, 0.03, 0, 0, 0, 0], [0.1, 0.3, 0.6, 0.8, 0.0, 0.2, 0, 0, 0, 0])
    assert avs.choose_static_high([other], above=3) == (4, 7)
    assert avs.choose_static_high([PROMOTABLE, other], above=3) == (6, 9)  # every seed's warm start must agree


def test_held_out_problems_exclude_every_training_prompt_and_repeat_none():
    config = experiment("miniature")
    config.warm_start.steps, config.warm_start.batch_size = 20, 32
    arm = experiment("miniature")
    arm.steps, arm.rollout.max_rounds, arm.rollout.oversample_prompts = 10, 2, 16
    seen = avs.training_prompts("Sorting", [0], config, [0, 1], arm, [0, 1])
    env = registry.make("Sorting")
    assert env.generate(1, first_problem_seed(1) + 319).prompt in seen  # an arm's last reachable draw, any level
    problems, counts = avs.held_out("Sorting", [0, 1, 2], 40, seen)
    prompts = [p.prompt for p in problems]
    assert counts == {0: 40, 1: 40, 2: 40} and len(set(prompts)) == len(prompts)
    assert not set(prompts) & seen
    # level 0 has 16**3 lists: excluding nearly all of them leaves what is left, counted
    every_list = {env.generate(0, seed).prompt for seed in range(200_000)}
    kept = sorted(every_list)[:5]
    problems, counts = avs.held_out("Sorting", [0], 10, every_list - set(kept))
    assert counts == {0: len({p.prompt for p in problems})} and {p.prompt for p in problems} <= set(kept)


def test_warm_start_prompts_are_in_the_exclusion_set():
    from rlve_jax.rl.warm_start import draws

    config = experiment("miniature")
    config.warm_start.steps, config.warm_start.batch_size = 2, 4
    arm = experiment("miniature")
    arm.steps = 0
    seen = avs.training_prompts("Sorting", [5], config, [], arm, [0])
    stream = draws(["Sorting"], config.warm_start.max_difficulty, 5)
    expected = {registry.make("Sorting").generate(level, seed).prompt for _, level, seed in
                (next(stream) for _ in range(8))}
    assert seen == expected


def test_a_run_directory_is_reused_only_under_the_same_config(tmp_path):
    config = experiment("miniature")
    avs.claim_run_dir(tmp_path / "run", config)
    avs.claim_run_dir(tmp_path / "run", config)  # same config: reused
    changed = experiment("miniature")
    changed.optim.lr = 5e-4
    with pytest.raises(SystemExit, match="made with another config"):
        avs.claim_run_dir(tmp_path / "run", changed)
    older = experiment("miniature")  # a config from before a key existed (at its default): the same run
    del older.scheduler["max_level"]
    avs.claim_run_dir(tmp_path / "run", older)
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "metrics.jsonl").write_text("{}\n")
    with pytest.raises(SystemExit, match="without a config.sha256"):
        avs.claim_run_dir(tmp_path / "old", config)


def test_paired_difference_is_a_t_interval_over_seeds_with_the_sign_count():
    rng = np.random.default_rng(0)
    b = (rng.random((5, 100)) < 0.5).astype(float)
    a = b.copy()
    a[:, :10] = 1.0  # adaptive solves 10 more problems on some seeds
    per_seed = (a - b).mean(1)
    mean, lo, hi, ahead = avs.paired_difference(a, b)
    half = stats.t.ppf(0.975, 4) * per_seed.std(ddof=1) / np.sqrt(5)
    assert mean == pytest.approx(per_seed.mean()) and (lo, hi) == pytest.approx((mean - half, mean + half))
    assert ahead == int((per_seed > 0).sum()) and 0 < ahead <= 5
    assert avs.paired_difference(b, b)[:3] == (0.0, 0.0, 0.0) and avs.paired_difference(b, b)[3] == 0
    # one seed: no interval
    assert np.isnan(avs.paired_difference(a[:1], b[:1])[1])


def test_bootstrap_interval_over_seeds_and_problems():
    rng = np.random.default_rng(0)
    assert avs.bootstrap_interval(np.ones((3, 20)), rng) == (1.0, 1.0)
    # one seed solves everything, two solve nothing: resampling seeds must widen the interval to ~[0, 1]
    lo, hi = avs.bootstrap_interval(np.array([[1.0] * 20, [0.0] * 20, [0.0] * 20]), rng)
    assert lo == 0.0 and hi == 1.0
    correct = (rng.random((3, 200)) < 0.3).astype(float)
    lo, hi = avs.bootstrap_interval(correct, rng)
    assert lo < correct.mean() < hi and hi - lo < 0.2
