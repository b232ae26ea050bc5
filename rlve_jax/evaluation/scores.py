"""Scores of an evaluation: accuracy (Avg@k) overall, per environment or benchmark and per level, and
the unbiased pass@k (Chen et al. 2021); shared by the held-out/benchmark suites and the code suite.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Sequence

import numpy as np

from rlve_jax.gym.env import Problem, Verdict


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples with c correct: 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def summarize(problems: Sequence[Problem], verdicts: Sequence[Sequence[Verdict]],
              ks: Sequence[int] = (1,)) -> dict:
    """Accuracy (Avg@k over samples) overall, per environment/benchmark and per difficulty; pass@k."""
    def group_key(p: Problem) -> str:
        return p.params.get("benchmark", p.env)

    per_group: dict[str, list[float]] = defaultdict(list)
    per_level: dict[int, list[float]] = defaultdict(list)
    passes: dict[int, list[float]] = defaultdict(list)
    for problem, samples in zip(problems, verdicts):
        accuracy = float(np.mean([v.accuracy for v in samples]))
        per_group[group_key(problem)].append(accuracy)
        per_level[problem.difficulty].append(accuracy)
        for k in ks:
            if k <= len(samples):
                passes[k].append(pass_at_k(len(samples), sum(v.accuracy for v in samples), k))
    all_acc = [a for values in per_group.values() for a in values]
    rewards = [v.reward for samples in verdicts for v in samples]
    return {
        "overall": float(np.mean(all_acc)) if all_acc else 0.0,
        "reward": float(np.mean(rewards)) if rewards else 0.0,
        "problems": len(all_acc),
        "per_group": {g: float(np.mean(v)) for g, v in sorted(per_group.items())},
        "per_difficulty": {d: float(np.mean(v)) for d, v in sorted(per_level.items())},
        "pass_at_k": {k: float(np.mean(v)) for k, v in sorted(passes.items())},
    }


def format_summary(title: str, summary: dict) -> str:
    lines = [f"== {title}: accuracy {summary['overall']:.4f} over {summary['problems']} problems"]
    if len(summary["per_difficulty"]) > 1:
        lines.append("per difficulty: " + ", ".join(f"d{d} {a:.3f}" for d, a in summary["per_difficulty"].items()))
    lines += [f"  {g:46s} {a:.4f}" for g, a in summary["per_group"].items()]
    if summary["pass_at_k"]:
        lines.append("pass@k: " + ", ".join(f"@{k} {v:.4f}" for k, v in summary["pass_at_k"].items()))
    return "\n".join(lines)
