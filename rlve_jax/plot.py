"""Plots of a run from workdir/metrics.jsonl.

    python -m rlve_jax.plot --workdir DIR [--smooth N]

Writes DIR/plots/{difficulty.png, effective_prompt_ratio.png, reward.png, optimization.png}: the
difficulty ladder (upper level h) of each environment over steps, the effective prompt ratio (the
share of generated groups whose rewards are not all equal, as the paper defines it) beside the
share the batch kept, the reward/accuracy curves, and the optimiser's numbers (gradient norm,
learning rate, entropy of the sampled tokens, verifier failures) where the run logged them.
With --smooth N, noisy curves also get a trailing moving average over N logged steps (the raw
values stay, faint).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from rlve_jax.runtime.metrics import read_records  # noqa: E402

MAX_LABELLED_ENVS = 20
# optimization.png: (metric key, panel title, y label)
OPTIMIZATION_PANELS = (
    ("train/grad_norm", "Gradient norm (before clipping)", "global L2 norm"),
    ("train/learning_rate", "Learning rate", "learning rate"),
    ("rollout/entropy", "Entropy of the sampled tokens", "mean -log p per token (nats)"),
    ("train/loss", "Policy loss", "loss"),
)
VERIFIER_KEYS = (("rollout/verifier_timeouts", "timeouts"), ("rollout/verifier_crashes", "crashes"),
                 ("rollout/failed_generations", "failed generations"))


def _series(records: list[dict], key: str) -> tuple[list[int], list[float]]:
    points = [(r["step"], r[key]) for r in records if key in r]
    return [p[0] for p in points], [p[1] for p in points]


def moving_average(values: Sequence[float], window: int) -> np.ndarray:
    """Trailing mean over the last `window` values (fewer at the start): [N] -> [N]."""
    values = np.asarray(values, np.float64)
    if window <= 1 or not len(values):
        return values
    sums = np.cumsum(np.concatenate([[0.0], values]))
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


def _curve(ax, steps: list[int], values: list[float], label: str | None, smooth: int) -> None:
    """The raw curve, plus its moving average when smoothing (raw faint, the average labelled)."""
    if smooth > 1:
        line, = ax.plot(steps, values, alpha=0.3, linewidth=0.8)
        ax.plot(steps, moving_average(values, smooth), color=line.get_color(),
                label=None if label is None else f"{label} (mean of {smooth})")
    else:
        ax.plot(steps, values, label=label)


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def render(workdir: str | Path, smooth: int = 0) -> list[Path]:
    """Render the plots; returns the files written. smooth > 1 adds a moving average over that many steps."""
    records = [r for r in read_records(workdir) if r.get("kind", "train") == "train"]
    out = Path(workdir) / "plots"
    out.mkdir(parents=True, exist_ok=True)
    written = []

    fig, ax = plt.subplots(figsize=(8, 5))
    env_keys = sorted({k for r in records for k in r if k.startswith("difficulty/")})
    for key in env_keys:
        steps, values = _series(records, key)
        ax.step(steps, values, where="post", label=key.split("/", 1)[1] if len(env_keys) <= MAX_LABELLED_ENVS else None)
    ax.set(xlabel="step", ylabel="upper difficulty level h", title="Difficulty ladder per environment")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # levels are integers
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if env_keys and len(env_keys) <= MAX_LABELLED_ENVS:
        ax.legend(fontsize=7, ncol=2)
    written.append(_save(fig, out / "difficulty.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    for key, label in (("rollout/effective_prompt_ratio", "effective: groups with unequal rewards / generated"),
                       ("rollout/kept_ratio", "kept: groups in the batch / generated")):
        steps, values = _series(records, key)
        if steps:
            _curve(ax, steps, values, label, smooth)
    ax.set(xlabel="step", ylabel="share of generated groups", title="Effective prompt ratio", ylim=(0, 1.05))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8)
    written.append(_save(fig, out / "effective_prompt_ratio.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    for key, label in (("rollout/reward", "reward"), ("rollout/accuracy", "accuracy"),
                       ("eval/accuracy", "held-out accuracy")):
        steps, values = _series(records, key)
        if steps:
            _curve(ax, steps, values, label, smooth)
    ax.set(xlabel="step", ylabel="mean over the step's responses (reward in [-1, 1])",
           title="Reward and accuracy of the step's rollouts")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    written.append(_save(fig, out / "reward.png"))

    panels = [p for p in OPTIMIZATION_PANELS if _series(records, p[0])[0]]
    failures = [(k, label) for k, label in VERIFIER_KEYS if _series(records, k)[0]]
    if panels or failures:
        count = len(panels) + bool(failures)
        fig, axes = plt.subplots(count, 1, figsize=(8, 2.6 * count), sharex=True, squeeze=False)
        for ax, (key, title, ylabel) in zip(axes[:, 0], panels):
            _curve(ax, *_series(records, key), None, smooth)
            ax.set(title=title, ylabel=ylabel)
        if failures:
            ax = axes[-1, 0]
            for key, label in failures:
                ax.plot(*_series(records, key), label=label)
            ax.set(title="Verifier and generator failures per step", ylabel="count")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            ax.legend()
        axes[-1, 0].set_xlabel("step")
        axes[-1, 0].xaxis.set_major_locator(MaxNLocator(integer=True))
        written.append(_save(fig, out / "optimization.png"))
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--smooth", type=int, default=0, help="moving-average window in steps (0: off)")
    args = parser.parse_args(argv)
    if not (Path(args.workdir) / "metrics.jsonl").exists():
        parser.exit(2, f"error: no metrics.jsonl in {args.workdir}\n")
    if args.smooth < 0:
        parser.exit(2, "error: --smooth must be >= 0\n")
    for path in render(args.workdir, args.smooth):
        print(path)


if __name__ == "__main__":
    main()
