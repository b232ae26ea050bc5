"""Generate/verify latency per environment and difficulty, in-process vs through the worker pool.

    python experiments/bench_envs.py                              # every implemented env, d = 0..6
    python experiments/bench_envs.py --envs C16 --difficulties 0-9 --seeds 20

Prints one table: per environment, the median and p99 milliseconds of `generate` and of
`verify` (on the reference answer) in-process, at each difficulty's worst case, and the pool's
per-item wall time with 2 workers for the same work; the last columns give the pool/in-process
ratio (the baseline is the in-process call measured in the same run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.envs import parse_range  # noqa: E402
from rlve_jax.gym.pool import EnvPool  # noqa: E402
from rlve_jax.gym.env import ANSWER_TAGS  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def time_env(name: str, difficulties: list[int], seeds: int) -> dict:
    """In-process timings (ms) per difficulty; returns the worst difficulty's numbers too."""
    env = registry.make(name)
    rows = {}
    for d in difficulties:
        gen, ver = [], []
        for seed in range(seeds):
            start = time.perf_counter()
            problem = env.generate(d, seed)
            gen.append(1000 * (time.perf_counter() - start))
            reference = env.reference(problem) or ""
            start = time.perf_counter()
            env.verify(problem, f"<answer>{reference}</answer>", ANSWER_TAGS)
            ver.append(1000 * (time.perf_counter() - start))
        rows[d] = (statistics.median(gen), percentile(gen, 0.99), statistics.median(ver), percentile(ver, 0.99))
    return rows


def time_pool(pool: EnvPool, names: list[str], difficulties: list[int], seeds: int) -> tuple[float, float]:
    """Per-item wall ms of pool.generate and pool.verify over the whole request set."""
    requests = [(n, d, s) for n in names for d in difficulties for s in range(seeds)]
    start = time.perf_counter()
    problems = pool.generate(requests)
    gen_ms = 1000 * (time.perf_counter() - start) / len(requests)
    envs = {n: registry.make(n) for n in names}
    kept = [p for p in problems if p is not None]
    outputs = [f"<answer>{envs[p.env].reference(p) or ''}</answer>" for p in kept]
    start = time.perf_counter()
    pool.verify(kept, outputs, ANSWER_TAGS)
    ver_ms = 1000 * (time.perf_counter() - start) / max(1, len(kept))
    return gen_ms, ver_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="C400", help="collection or comma-separated identifiers")
    parser.add_argument("--difficulties", type=parse_range, default=parse_range("0-6"))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    names = [n for n in registry.resolve(args.envs) if registry.is_implemented(n)]

    inproc = {name: time_env(name, args.difficulties, args.seeds) for name in names}
    with EnvPool(workers=args.workers) as pool:
        time_pool(pool, names[:1], args.difficulties[:1], 1)  # start the workers outside the timing
        pool_gen, pool_ver = time_pool(pool, names, args.difficulties, args.seeds)

    print(f"{len(names)} environments, difficulties {args.difficulties[0]}-{args.difficulties[-1]}, "
          f"{args.seeds} seeds each; worst difficulty per environment (ms)")
    print(f"{'environment':46s} {'d':>2s} {'gen med':>8s} {'gen p99':>8s} {'ver med':>8s} {'ver p99':>8s}")
    slow = []
    for name, rows in inproc.items():
        d = max(rows, key=lambda k: rows[k][0] + rows[k][2])
        gen_med, gen_p99, ver_med, ver_p99 = rows[d]
        print(f"{name:46s} {d:2d} {gen_med:8.2f} {gen_p99:8.2f} {ver_med:8.2f} {ver_p99:8.2f}")
        if max(gen_med, ver_med) >= 1000:
            slow.append(name)
    all_gen = [r[0] for rows in inproc.values() for r in rows.values()]
    all_ver = [r[2] for rows in inproc.values() for r in rows.values()]
    mean_gen, mean_ver = statistics.mean(all_gen), statistics.mean(all_ver)
    print(f"\n{'summary':46s} {'in-process':>12s} {f'pool ({args.workers} workers)':>18s} {'ratio':>8s}")
    print(f"{'generate, mean ms per item':46s} {mean_gen:12.3f} {pool_gen:18.3f} {pool_gen / mean_gen:8.2f}")
    print(f"{'verify, mean ms per item':46s} {mean_ver:12.3f} {pool_ver:18.3f} {pool_ver / mean_ver:8.2f}")
    print(f"environments with a median >= 1 s at some difficulty: {slow or 'none'}")


if __name__ == "__main__":
    main()
