"""Plots of a run from workdir/metrics.jsonl.

    python -m rlve_jax.plot --workdir DIR

Writes DIR/plots/{difficulty.png, effective_prompt_ratio.png, reward.png}: the difficulty
ladder (upper level h) of each environment over steps, the effective prompt ratio (the share of
generated groups whose rewards are not all equal, as the paper defines it) beside the share the
batch kept, and the reward/accuracy curves.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from rlve_jax.metrics import read_records  # noqa: E402

MAX_LABELLED_ENVS = 20


def _series(records: list[dict], key: str) -> tuple[list[int], list[float]]:
    points = [(r["step"], r[key]) for r in records if key in r]
    return [p[0] for p in points], [p[1] for p in points]


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def render(workdir: str | Path) -> list[Path]:
    """Render the plots; returns the files written."""
    records = [r for r in read_records(workdir) if r.get("kind", "train") == "train"]
    out = Path(workdir) / "plots"
    out.mkdir(parents=True, exist_ok=True)
    written = []

    fig, ax = plt.subplots(figsize=(8, 5))
    env_keys = sorted({k for r in records for k in r if k.startswith("difficulty/")})
    for key in env_keys:
        steps, values = _series(records, key)
        ax.step(steps, values, where="post", label=key.split("/", 1)[1] if len(env_keys) <= MAX_LABELLED_ENVS else None)
    ax.set(xlabel="step", ylabel="upper difficulty h", title="Difficulty ladder per environment")
    if env_keys and len(env_keys) <= MAX_LABELLED_ENVS:
        ax.legend(fontsize=7, ncol=2)
    written.append(_save(fig, out / "difficulty.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    for key, label in (("rollout/effective_prompt_ratio", "effective: groups with unequal rewards / generated"),
                       ("rollout/kept_ratio", "kept: groups in the batch / generated")):
        steps, values = _series(records, key)
        if steps:
            ax.plot(steps, values, label=label)
    ax.set(xlabel="step", ylabel="share of generated groups", title="Effective prompt ratio", ylim=(0, 1.05))
    ax.legend(fontsize=8)
    written.append(_save(fig, out / "effective_prompt_ratio.png"))

    fig, ax = plt.subplots(figsize=(8, 4))
    for key, label in (("rollout/reward", "reward"), ("rollout/accuracy", "accuracy"), ("eval/accuracy", "held-out accuracy")):
        steps, values = _series(records, key)
        if steps:
            ax.plot(steps, values, label=label)
    ax.set(xlabel="step", title="Reward and accuracy of the step's rollouts")
    ax.legend()
    written.append(_save(fig, out / "reward.png"))
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    if not (Path(args.workdir) / "metrics.jsonl").exists():
        parser.exit(2, f"error: no metrics.jsonl in {args.workdir}\n")
    for path in render(args.workdir):
        print(path)


if __name__ == "__main__":
    main()
