"""One-step-off-policy training against the synchronous loop, on the tiny config with 8 forced CPU devices.

    python experiments/bench_async.py                  # 12 RL steps per run
    python experiments/bench_async.py --steps 30 --workdir /tmp/bench_async

Three runs of the tiny config (6 prompts x 8 samples per step, so that 6 and 8 devices both divide the batch),
one after the other, each from the same warm start:
  sync, 8 shared     mesh.rollout_devices=0: every device generates, then every device trains (today's loop);
  split 2+6, lag 0   mesh.rollout_devices=2, train.max_staleness=0: 2 devices generate, 6 train, in turn;
  split 2+6, lag 1   ... max_staleness=1: step k+1's batch is generated while update k runs.
It prints one table: median seconds per RL step over steps 2..N (step 1 compiles), the median generation and
update phases, and each run's step time as a ratio to the synchronous loop's and to the split run without
overlap (lag 0: what the overlap alone gains); below 1 is faster.
The CPU "devices" are threads of one host sharing its cores, so the overlap can only win where the cores
are not already busy; on separate accelerators the two phases run on separate chips.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_common import table  # noqa: E402

RUNS = {
    "sync, 8 shared": ["--config.mesh.rollout_devices=0"],
    "split 2+6, lag 0": ["--config.mesh.rollout_devices=2", "--config.train.max_staleness=0"],
    "split 2+6, lag 1": ["--config.mesh.rollout_devices=2", "--config.train.max_staleness=1"],
}


def run(workdir: Path, steps: int, extra: list[str]) -> None:
    cmd = [sys.executable, "-m", "rlve_jax.main", "--config=configs/tiny.py", f"--workdir={workdir}",
           f"--config.steps={steps}", "--config.warm_start.steps=40", "--config.rollout.prompts_per_step=6",
           "--config.train.micro_batch_size=48", "--config.checkpoint.every=1000", "--config.log.progress=False",
           "--config.log.tensorboard=False", *extra]
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    result = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(result.stderr[-4000:])


def medians(workdir: Path) -> dict[str, float]:
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in records if r["kind"] == "train" and r["step"] > 1]  # step 1 compiles
    return {key: statistics.median(r.get(key, 0.0) for r in steps)
            for key in ("time/step", "time/generate", "time/train", "rollout/staleness_mean")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/bench_async"))
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    results = {}
    for i, (name, extra) in enumerate(RUNS.items()):
        run(args.workdir / str(i), args.steps, extra)
        results[name] = medians(args.workdir / str(i))
    base, split = results["sync, 8 shared"]["time/step"], results["split 2+6, lag 0"]["time/step"]
    print(f"tiny config (6 prompts x 8 samples), 8 CPU devices, {os.cpu_count()} cores, {args.steps} RL steps; "
          f"medians over steps 2..{args.steps}")
    table([(name, f"{m['time/step']:.3f}", f"{m['time/generate']:.3f}", f"{m['time/train']:.3f}",
            f"{m['rollout/staleness_mean']:.2f}", f"{m['time/step'] / base:.2f}x", f"{m['time/step'] / split:.2f}x")
           for name, m in results.items()],
          ("run", "s/step", "generate s", "update s", "staleness", "vs sync", "vs lag 0"))


if __name__ == "__main__":
    main()
