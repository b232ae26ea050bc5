"""Pool start-up from a trainer-like main module (one that imports JAX): loky's launcher against `spawn`.

    nice -n 10 python experiments/bench_pool_start.py [--repeats 3] [--workers 2]

Each run is a fresh interpreter whose main module imports JAX, starts an EnvPool and verifies one item per
worker; it reports the seconds from EnvPool() to the verdicts and whether a worker had JAX imported. `spawn`
(the pool's start method before) re-imports the main module in every worker, so each worker imports JAX too;
loky's launcher (the pool's now) does not. One table; ratio = spawn time / loky time, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import subprocess
import sys
import time
from pathlib import Path

import jax  # noqa: F401 -- the point: a main module that imports JAX, as rlve_jax.main does

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlve_jax.gym import pool as pool_module  # noqa: E402
from rlve_jax.gym.env import ANSWER_TAGS, Environment  # noqa: E402


class JaxProbe(Environment):
    """Scores 1 when the worker that verifies has JAX imported."""

    name = "BenchJaxProbe"

    def levels(self, difficulty):
        return [{}]

    def sample(self, params, rng):
        return {}

    def prompt(self, data):
        return ""

    def score(self, data, answer):
        return float("jax" in sys.modules)


def child(launcher: str, workers: int) -> None:
    if launcher == "spawn":  # the pool as it was: multiprocessing's spawn context
        pool_module.loky_context.get_context = lambda name: multiprocessing.get_context("spawn")
    probe = JaxProbe()
    problems = [probe.generate(0, seed) for seed in range(workers)]
    start = time.perf_counter()
    with pool_module.EnvPool(workers=workers, extra_envs=[probe]) as pool:
        verdicts = pool.verify(problems, ["<answer>x</answer>"] * workers, ANSWER_TAGS)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "workers_with_jax": sum(v.reward == 1.0 for v in verdicts)}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--child", choices=("spawn", "loky"))
    args = parser.parse_args()
    if args.child:
        child(args.child, args.workers)
        return
    results: dict[str, list[dict]] = {"spawn": [], "loky": []}
    for _ in range(args.repeats):  # interleaved, so that load changes hit both alike
        for launcher in results:
            out = subprocess.run([sys.executable, __file__, "--child", launcher, "--workers", str(args.workers)],
                                 check=True, capture_output=True, text=True).stdout
            results[launcher].append(json.loads(out.splitlines()[-1]))
    median = {k: statistics.median(r["seconds"] for r in v) for k, v in results.items()}
    print(f"{'launcher':8s} {'median s to first verdicts':>27s} {'workers with JAX':>17s} {'ratio':>6s}")
    for launcher, runs in results.items():
        print(f"{launcher:8s} {median[launcher]:27.2f} {runs[0]['workers_with_jax']:>12d}/{args.workers:<4d} "
              f"{median[launcher] / median['loky']:6.2f}")


if __name__ == "__main__":
    main()
