"""Run plots: labelled axes, integer level ticks, the optional moving average."""

import json

import numpy as np

from rlve_jax import plot


def test_moving_average_is_a_trailing_mean():
    np.testing.assert_allclose(plot.moving_average([1, 2, 3, 4, 5], 3), [1, 1.5, 2, 3, 4])
    np.testing.assert_allclose(plot.moving_average([1, 5], 0), [1, 5])


def test_plots_have_labels_integer_levels_and_smoothing(tmp_path, monkeypatch):
    records = [{"step": s, "kind": "train", "difficulty/Sorting": s // 3, "difficulty/Division": s // 5,
                "rollout/reward": (-1) ** s * 0.5, "rollout/accuracy": 0.1 * (s % 4),
                "rollout/effective_prompt_ratio": 0.5, "train/grad_norm": 1.0 / (s + 1),
                "train/learning_rate": 1e-6, "rollout/entropy": 0.7, "rollout/verifier_timeouts": s % 2,
                "rollout/verifier_crashes": 0, "rollout/failed_generations": 0} for s in range(1, 12)]
    records.insert(0, {"step": 0, "kind": "warm_start", "warm_start/loss": 3.0})
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    figures = {}
    save = plot._save

    def keep(fig, path):
        figures[path.name] = [(ax.get_xlabel(), ax.get_ylabel(), list(ax.get_yticks()),
                               [line.get_label() for line in ax.get_lines()]) for ax in fig.axes]
        return save(fig, path)

    monkeypatch.setattr(plot, "_save", keep)
    written = plot.render(tmp_path, smooth=3)
    assert sorted(p.name for p in written) == ["difficulty.png", "effective_prompt_ratio.png", "optimization.png",
                                                "reward.png"]
    assert all(p.stat().st_size > 0 for p in written)
    (x, y, ticks, _), = figures["difficulty.png"]
    assert x == "step" and y and all(float(t).is_integer() for t in ticks)
    (x, y, _, labels), = figures["reward.png"]
    assert x == "step" and y.startswith("mean") and "reward (mean of 3)" in labels
    assert all(ylabel for _, ylabel, _, _ in figures["optimization.png"])
    assert len(figures["optimization.png"]) == 4  # grad norm, learning rate, entropy, failures
