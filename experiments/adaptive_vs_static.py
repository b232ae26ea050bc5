"""The paper's adaptivity result (its Fig. 3) in a CPU miniature: adaptive difficulty against two
static level ranges, with the same policy, warm start and budget.

    python experiments/adaptive_vs_static.py --quick     # 2 seeds, short runs: about 8 minutes on 2 cores
    python experiments/adaptive_vs_static.py             # 2 seeds, the tiny run's length: about 30 minutes
    python experiments/adaptive_vs_static.py --seeds 3 --steps 150 --workdir /tmp/avs

Starts from configs/tiny.py (policy, environments, batch, learning rate). For each seed the warm
start runs once and every arm starts from its parameters. Arms:
  adaptive     the RLVE scheduler (window 4, promote at accuracy 0.9 at h)
  static-low   levels drawn uniformly from [0, 1]
  static-wide  levels drawn uniformly from [0, H], H the highest h the adaptive arm reached
Prints one table (mean effective prompt ratio over the second half of training; accuracy on a fixed
evaluation set drawn from levels 0..H, greedy, with its standard error over problems x seeds; the
final h) and writes WORKDIR/adaptive_vs_static.png: the effective prompt ratio over steps per arm
(mean and range over seeds) and h per environment for the adaptive arm.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.runtime.checkpoint import Checkpointer  # noqa: E402
from rlve_jax.defaults import experiment  # noqa: E402
from rlve_jax.evaluation.evaluate import eval_generator, eval_policy, evaluate_problems  # noqa: E402
from rlve_jax.runtime.metrics import read_records  # noqa: E402
from rlve_jax.gym.pool import EnvPool  # noqa: E402
from rlve_jax.generation.rollout import SamplingSettings  # noqa: E402
from rlve_jax.builder import build_trainer  # noqa: E402

EVAL_SEED_OFFSET = 1 << 41  # evaluation problems never share seeds with training or warm-start problems
ARMS = ("adaptive", "static-low", "static-wide")


def arm_config(arm: str, seed: int, steps: int, warm_dir: Path, top_level: int):
    """The tiny run's config for one arm and seed, starting from the seed's warm start (no warm start of its own)."""
    config = experiment("tiny")
    config.seed, config.steps = seed, steps
    config.warm_start.steps = 0
    config.tokenizer.path = str(warm_dir / "tokenizer")
    config.checkpoint.every = steps  # only the final step: the arms' checkpoints are not needed
    config.log.progress = False
    config.log.tensorboard = False
    if arm != "adaptive":
        config.scheduler.kind = "static"
        config.scheduler.static_lo, config.scheduler.static_hi = 0, 1 if arm == "static-low" else top_level
    return config


def warm_start(seed: int, workdir: Path, warm_steps: int | None) -> Path:
    """The seed's supervised warm start, once (its step-0 checkpoint holds the starting parameters)."""
    out = workdir / f"warm_seed{seed}"
    if (out / "checkpoints" / "0").exists():
        return out
    config = experiment("tiny")
    config.seed, config.steps = seed, 0
    if warm_steps is not None:
        config.warm_start.steps = warm_steps
    config.log.progress = config.log.tensorboard = False
    run_trainer(config, out)
    return out


def run_trainer(config, workdir: Path, init_from: Path | None = None) -> float:
    start = time.perf_counter()
    trainer = build_trainer(config, workdir)
    try:
        if init_from is not None:
            checkpointer = Checkpointer(init_from)
            trainer.policy.params = checkpointer.restore_params(0, trainer.policy.params)
            checkpointer.close()
        trainer.run()
    finally:
        trainer.close()
    return time.perf_counter() - start


def final_levels(workdir: Path) -> dict[str, int]:
    train = [r for r in read_records(workdir) if r.get("kind") == "train"]
    return {k.split("/", 1)[1]: int(v) for k, v in train[-1].items() if k.startswith("difficulty/")}


def series(workdir: Path, key: str) -> tuple[np.ndarray, np.ndarray]:
    train = [r for r in read_records(workdir) if r.get("kind") == "train" and key in r]
    return np.array([r["step"] for r in train]), np.array([r[key] for r in train], float)


def evaluation_set(env_names: list[str], top_level: int, per_level: int):
    """per_level problems per environment and level 0..top_level, from seeds no run trains on."""
    problems = []
    for env in registry.make_all(env_names):
        for level in range(top_level + 1):
            problems += [env.generate(level, EVAL_SEED_OFFSET + 1000 * level + i) for i in range(per_level)]
    return problems


def evaluate_run(run_dir: Path, config, problems) -> np.ndarray:
    """Greedy accuracy of the run's final parameters on every evaluation problem: [len(problems)] 0/1."""
    config = config.copy_and_resolve_references()
    config.eval.checkpoint = str(run_dir)
    policy = eval_policy(config, run_dir / "eval")
    settings = SamplingSettings(1, config.rollout.max_response_tokens, temperature=0.0)
    with EnvPool(workers=config.env.workers, timeout_s=config.env.timeout_s,
                 memory_limit_mb=config.env.memory_limit_mb) as pool:
        generator = eval_generator(policy, problems, settings, config.rollout)
        _, records, _ = evaluate_problems(policy, pool, problems, settings, generator, seed=0, progress=False)
    return np.array([r["accuracy"] for r in records], float)


def plot(results: dict, adaptive_dirs: list[Path], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for arm in ARMS:
        curves = [series(d, "rollout/effective_prompt_ratio") for d in results[arm]["dirs"]]
        n = min(len(s) for s, _ in curves)
        steps, values = curves[0][0][:n], np.stack([v[:n] for _, v in curves])
        line, = left.plot(steps, values.mean(0), label=arm)
        left.fill_between(steps, values.min(0), values.max(0), color=line.get_color(), alpha=0.2)
    left.set(xlabel="step", ylabel="effective prompt ratio", ylim=(0, 1.05),
             title="Groups with unequal rewards / generated (mean, range over seeds)")
    left.xaxis.get_major_locator().set_params(integer=True)
    left.legend()
    for seed_index, run_dir in enumerate(adaptive_dirs):
        for key in sorted({k for r in read_records(run_dir) for k in r if k.startswith("difficulty/")}):
            steps, values = series(run_dir, key)
            right.step(steps, values, where="post", label=f"{key.split('/', 1)[1]} (seed {seed_index})")
    right.set(xlabel="step", ylabel="upper level h", title="Adaptive arm: h per environment")
    right.yaxis.get_major_locator().set_params(integer=True)
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs (about 8 minutes on 2 cores)")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=None, help="RL steps per arm (default: the tiny run's; quick 30)")
    parser.add_argument("--eval-per-level", type=int, default=None, help="evaluation problems per env and level")
    parser.add_argument("--workdir", default="/tmp/adaptive_vs_static")
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.WARNING)
    tiny = experiment("tiny")
    steps = args.steps or (30 if args.quick else tiny.steps)
    warm_steps = 150 if args.quick else None
    per_level = args.eval_per_level or (16 if args.quick else 32)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    seeds = list(range(args.seeds))
    warm = {seed: warm_start(seed, workdir, warm_steps) for seed in seeds}
    results = {arm: {"dirs": [], "levels": []} for arm in ARMS}
    top_level = 1
    for arm in ARMS:  # adaptive first: its highest level sets the wide arm's range
        for seed in seeds:
            run_dir = workdir / f"{arm}_seed{seed}"
            config = arm_config(arm, seed, steps, warm[seed], top_level)
            if not (run_dir / "checkpoints" / str(steps)).exists():
                print(f"[{time.perf_counter() - start:6.0f} s] {arm}, seed {seed}: {steps} steps", flush=True)
                run_trainer(config, run_dir, init_from=warm[seed])
            results[arm]["dirs"].append(run_dir)
            results[arm]["levels"].append(final_levels(run_dir))
            results[arm]["config"] = config
        if arm == "adaptive":
            top_level = max(1, max(h for levels in results[arm]["levels"] for h in levels.values()))
    env_names = list(registry.resolve(tiny.env.collection))
    problems = evaluation_set(env_names, top_level, per_level)
    rows = []
    for arm in ARMS:
        ratios = []
        for run_dir in results[arm]["dirs"]:
            _, values = series(run_dir, "rollout/effective_prompt_ratio")
            ratios.append(values[len(values) // 2:].mean())
        correct = np.concatenate([evaluate_run(d, results[arm]["config"], problems) for d in results[arm]["dirs"]])
        se = math.sqrt(correct.mean() * (1 - correct.mean()) / len(correct))
        levels = " ".join(f"{env}={max(lv[env] for lv in results[arm]['levels'])}" for env in env_names)
        rows.append((arm, f"{np.mean(ratios):.3f}", f"{correct.mean():.3f} ± {se:.3f}", levels))
    plot(results, results["adaptive"]["dirs"], workdir / "adaptive_vs_static.png")
    header = ("arm", "effective prompt ratio (2nd half)", f"accuracy on levels 0..{top_level} (greedy)", "final h (max)")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    print(f"\n{args.seeds} seeds x {steps} RL steps per arm; evaluation: {len(problems)} problems "
          f"({per_level} per environment and level) x {args.seeds} seeds per arm")
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    print(f"figure: {workdir / 'adaptive_vs_static.png'}; wall time {time.perf_counter() - start:.0f} s")
    (workdir / "table.json").write_text(json.dumps({"rows": rows, "top_level": top_level, "steps": steps}, indent=1))


if __name__ == "__main__":
    main()
