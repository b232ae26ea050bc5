"""The adaptive-vs-static miniature's bookkeeping: which runs stand for static-oracle, and the bootstrap."""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))

import adaptive_vs_static as avs  # noqa: E402


def test_static_oracle_reuses_identical_runs_only():
    assert avs.oracle_twin(0) == "adaptive"  # h never left 0: adaptive trained on [0, 0]
    assert avs.oracle_twin(avs.STATIC_LOW[1]) == "static-low"
    assert avs.oracle_twin(avs.STATIC_LOW[1] + 1) is None
    assert avs.static_range("static-oracle", 3) == (0, 3)


def test_bootstrap_interval_over_seeds_and_problems():
    rng = np.random.default_rng(0)
    assert avs.bootstrap_interval(np.ones((3, 20)), rng) == (1.0, 1.0)
    # one seed solves everything, two solve nothing: resampling seeds must widen the interval to ~[0, 1]
    lo, hi = avs.bootstrap_interval(np.array([[1.0] * 20, [0.0] * 20, [0.0] * 20]), rng)
    assert lo == 0.0 and hi == 1.0
    correct = (rng.random((3, 200)) < 0.3).astype(float)
    lo, hi = avs.bootstrap_interval(correct, rng)
    assert lo < correct.mean() < hi and hi - lo < 0.2
