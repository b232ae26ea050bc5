"""Two processes (jax.distributed on localhost, gloo) against one process with the same global batch.

    python experiments/bench_processes.py                  # tiny config, 6 RL steps
    python experiments/bench_processes.py --steps 20 --workdir /tmp/bench_processes

Runs the tiny config once as 1 process x 2 CPU devices (the baseline) and once as 2 processes x 1
device, one after the other, then prints one table: median seconds per RL step and per phase
(reshard, generate, train) of each run with the ratio to the baseline, and whether the two runs
ended with the same scheduler state and how far apart their parameters are.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlve_jax.runtime.checkpoint import load_on_one_device  # noqa: E402

PHASES = ("time/step", "time/reshard", "time/generate", "time/train")


def launch(workdir: Path, devices: int, steps: int, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rlve_jax.main", "--config=configs/tiny.py", f"--workdir={workdir}",
           f"--config.steps={steps}", "--config.warm_start.steps=40", "--config.env.workers=0",
           "--config.log.progress=False", "--config.log.tensorboard=False", *extra]
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}", "JAX_PLATFORMS": "cpu"}
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait(*processes: subprocess.Popen) -> None:
    for process in processes:
        _, err = process.communicate()
        if process.returncode:
            raise SystemExit(err[-4000:])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def final_state(workdir: Path, step: int) -> tuple[list[np.ndarray], dict]:
    params, meta = load_on_one_device(workdir, step)
    return [np.asarray(x) for x in jax.tree.leaves(params)], meta


def medians(workdir: Path) -> dict[str, float]:
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in records if r["kind"] == "train" and r["step"] > 1]  # step 1 compiles
    return {k: statistics.median(r[k] for r in steps) for k in PHASES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/bench_processes"))
    args = parser.parse_args()
    shutil.rmtree(args.workdir, ignore_errors=True)
    one, two = args.workdir / "one", args.workdir / "two"
    wait(launch(one, 2, args.steps))
    port = free_port()
    wait(*[launch(two, 1, args.steps, "--config.distributed.num_processes=2", f"--config.distributed.process_id={i}",
                  f"--config.distributed.coordinator_address=127.0.0.1:{port}") for i in range(2)])

    base, other = medians(one), medians(two)
    (params_one, meta_one), (params_two, meta_two) = final_state(one, args.steps), final_state(two, args.steps)
    gap = max(float(np.max(np.abs(a - b))) for a, b in zip(params_one, params_two))
    print(f"tiny config, {args.steps} RL steps, medians over steps 2..{args.steps} (s)")
    print(f"{'run':<28}" + "".join(f"{k.split('/')[1]:>10}" for k in PHASES) + f"{'ratio':>8}")
    print(f"{'1 process x 2 devices':<28}" + "".join(f"{base[k]:>10.3f}" for k in PHASES) + f"{1.0:>7.2f}x")
    print(f"{'2 processes x 1 device':<28}" + "".join(f"{other[k]:>10.3f}" for k in PHASES)
          + f"{other['time/step'] / base['time/step']:>7.2f}x")
    print(f"same scheduler state: {meta_one['scheduler'] == meta_two['scheduler']}; "
          f"params max |diff| {gap:.2e} over {sum(p.size for p in params_one)} parameters")


if __name__ == "__main__":
    main()
