"""The paper's adaptivity result (its Fig. 3) in a CPU miniature: adaptive difficulty against three static
level ranges, with the same policy, warm start and budget.

    python experiments/adaptive_vs_static.py --quick     # 3 seeds x 30 steps per arm, one shared warm start
    python experiments/adaptive_vs_static.py             # 3 seeds x 200 steps per arm, a warm start per seed

    python experiments/adaptive_vs_static.py --seeds 5 --steps 200 --workdir /tmp/avs

(Measured on 2 idle cores: --quick 16 min 20 s; the full mode 83 min 37 s, partly beside other jobs.)

The miniature (configs/miniature.py): Sorting, whose levels are longer lists (3, 4, 5, 6, ... numbers), so the
skill learnt at one level (emit the numbers in order) carries to the next; a micro policy briefly
warm-started on levels 0-3, whose accuracy then falls with the level (levels 4 and up: never solved); the
binary accuracy as the reward and the dynamic-sampling key; the overlong penalty; a learning rate with
warm-up. Each seed's warm start runs
once and every arm starts from its parameters (--quick: every seed starts from seed 0's warm start, the
seeds differ in RL only).

Go/no-go first: the warm-started policy, sampled at T = 1 with G responses per problem, must explore
(effective prompt ratio on the binary key >= GO_LOW at the lowest levels and <= GO_HIGH at the too-hard
ones); otherwise the script stops and says so, since no arm could then show the effect.

Arms (the paper's four):
  adaptive       the RLVE scheduler (window 4, promote at accuracy 0.9 at h)
  static-low     levels uniformly from [0, 1] (mastered early)
  static-oracle  levels uniformly from [0, H], H the highest h the adaptive arm reached (max over seeds);
                 when [0, H] is static-low's range, static-low's runs stand for it, and adaptive's when H = 0
  static-high    levels uniformly from a range mostly too hard for the warm-started policy
Prints one table: the effective prompt ratio (binary key) over the second half of training, held-out
accuracy (greedy; problems whose seeds no run trains on) over levels 0..max(H, 1) and its upper half, each
with a 95% interval from a bootstrap over seeds and problems, and the final h. Writes
WORKDIR/adaptive_vs_static.png (ratio by step with the seeds' range; h by step; held-out accuracy per level)
and WORKDIR/table.json.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlve_jax.builder import build_trainer  # noqa: E402
from rlve_jax.defaults import experiment  # noqa: E402
from rlve_jax.evaluation.evaluate import eval_generator, eval_policy, evaluate_problems  # noqa: E402
from rlve_jax.generation.rollout import SamplingSettings  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.pool import EnvPool  # noqa: E402
from rlve_jax.runtime import distributed  # noqa: E402
from rlve_jax.runtime.checkpoint import Checkpointer  # noqa: E402
from rlve_jax.runtime.metrics import read_records  # noqa: E402

EVAL_SEED_OFFSET = 1 << 41  # held-out problems never share seeds with training or warm-start problems
PROBE_SEED_OFFSET = 1 << 42  # nor do the go/no-go check's
ARMS = ("adaptive", "static-low", "static-oracle", "static-high")
RATIO_KEY = "rollout/effective_prompt_ratio_accuracy"
GO_LOW, GO_HIGH = 0.3, 0.1
STATIC_LOW = (0, 1)
STATIC_HIGH = (4, 7)  # Sorting: lists of 7 to 10 numbers, mostly unsolved after the warm start


def base_config(seed: int, workdir: Path, warm_steps: int | None = None):
    config = experiment("miniature")
    config.seed = seed
    if warm_steps is not None:
        config.warm_start.steps = warm_steps
    config.log.progress = config.log.tensorboard = False
    config.compilation_cache_dir = str(workdir / "jax_cache")  # every arm compiles the same shapes once
    return config


def arm_config(arm: str, seed: int, steps: int, workdir: Path, warm_dir: Path, oracle_top: int):
    """One arm's config for one seed, starting from the seed's warm start (no warm start of its own)."""
    config = base_config(seed, workdir)
    config.steps = steps
    config.warm_start.steps = 0
    config.tokenizer.path = str(warm_dir / "tokenizer")
    config.checkpoint.every = steps  # only the final step: the arms' checkpoints are not needed
    if arm != "adaptive":
        config.scheduler.kind = "static"
        config.scheduler.static_lo, config.scheduler.static_hi = static_range(arm, oracle_top)
    return config


def static_range(arm: str, oracle_top: int) -> tuple[int, int]:
    return {"static-low": STATIC_LOW, "static-oracle": (0, oracle_top), "static-high": STATIC_HIGH}[arm]


def oracle_twin(oracle_top: int) -> str | None:
    """The arm whose runs already are static-oracle's: static-low's when [0, H] is its range; adaptive's when
    H = 0 (h never falls, so every adaptive seed trained on level 0 alone, which is the static range [0, 0])."""
    return "static-low" if (0, oracle_top) == STATIC_LOW else "adaptive" if oracle_top == 0 else None


def warm_start(seed: int, workdir: Path, warm_steps: int | None) -> Path:
    """The seed's supervised warm start, once (its step-0 checkpoint holds the starting parameters)."""
    out = workdir / f"warm_seed{seed}"
    if not (out / "checkpoints" / "0").exists():
        config = base_config(seed, workdir, warm_steps)
        config.steps = 0
        run_trainer(config, out)
    return out


def run_trainer(config, workdir: Path, init_from: Path | None = None) -> None:
    trainer = build_trainer(config, workdir)
    try:
        if init_from is not None:
            checkpointer = Checkpointer(init_from)
            trainer.policy.params = checkpointer.restore_params(0, trainer.policy.params)
            checkpointer.close()
        trainer.run()
    finally:
        trainer.close()


def sample_run(run_dir: Path, config, problems, samples: int, temperature: float) -> list[dict]:
    """Every response of the run's final parameters to the problems: one record per response."""
    config = config.copy_and_resolve_references()
    config.eval.checkpoint = str(run_dir)
    policy = eval_policy(config, run_dir / "eval")
    settings = SamplingSettings(samples, config.rollout.max_response_tokens, temperature=temperature)
    with EnvPool(workers=config.env.workers, timeout_s=config.env.timeout_s,
                 memory_limit_mb=config.env.memory_limit_mb) as pool:
        generator = eval_generator(policy, problems, settings, config.rollout)
        _, records, _ = evaluate_problems(policy, pool, problems, settings, generator, seed=0, progress=False)
    return records


def problems_at(levels, per_level: int, seed_offset: int, env_name: str):
    env = registry.make(env_name)
    return [env.generate(level, seed_offset + 1000 * level + i) for level in levels for i in range(per_level)]


def go_no_go(warm_dir: Path, config, per_level: int) -> tuple[bool, list[tuple]]:
    """The warm-started policy at T = 1: per level, accuracy, effective ratio on the binary key, distinct
    responses per group. Go when the lowest levels are informative and the static-high range is not."""
    low, high = STATIC_LOW, tuple(range(STATIC_HIGH[0], STATIC_HIGH[1] + 1))
    levels = sorted({*low, *high})
    problems = problems_at(levels, per_level, PROBE_SEED_OFFSET, config.env.collection)
    records = sample_run(warm_dir, config, problems, config.rollout.samples_per_prompt, 1.0)
    rows = []
    for level in levels:
        groups: dict[int, list[dict]] = {}
        for r in records:
            if r["difficulty"] == level:
                groups.setdefault(r["seed"], []).append(r)
        accuracy = np.mean([r["accuracy"] for g in groups.values() for r in g])
        ratio = np.mean([len({r["accuracy"] for r in g}) > 1 for g in groups.values()])
        distinct = np.mean([len({r["response"] for r in g}) for g in groups.values()])
        rows.append((level, accuracy, ratio, distinct))
    ratio_at = {level: ratio for level, _, ratio, _ in rows}
    go = min(ratio_at[level] for level in low) >= GO_LOW and np.mean([ratio_at[level] for level in high]) <= GO_HIGH
    return go, rows


def final_levels(workdir: Path) -> dict[str, int]:
    train = [r for r in read_records(workdir) if r.get("kind") == "train"]
    return {k.split("/", 1)[1]: int(v) for k, v in train[-1].items() if k.startswith("difficulty/")}


def series(workdir: Path, key: str) -> tuple[np.ndarray, np.ndarray]:
    train = [r for r in read_records(workdir) if r.get("kind") == "train" and key in r]
    return np.array([r["step"] for r in train]), np.array([r[key] for r in train], float)


def bootstrap_interval(correct: np.ndarray, rng: np.random.Generator, draws: int = 2000) -> tuple[float, float]:
    """95% interval of the mean of correct [seeds, problems]: seeds resampled, then problems within each."""
    seeds, problems = correct.shape
    means = np.empty(draws)
    for i in range(draws):
        picked = correct[rng.integers(0, seeds, seeds)]  # [seeds, problems]
        means[i] = np.take_along_axis(picked, rng.integers(0, problems, picked.shape), 1).mean()
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def accuracy_cell(correct: np.ndarray, rng: np.random.Generator) -> str:
    lo, hi = bootstrap_interval(correct, rng)
    return f"{correct.mean():.3f} [{lo:.3f}, {hi:.3f}]"


def plot(results: dict, levels: list[int], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ratio_ax, h_ax, acc_ax) = plt.subplots(1, 3, figsize=(17, 4.5))
    aliases = {results[arm]["same_as"]: arm for arm in ARMS if "same_as" in results[arm]}
    for arm in ARMS:
        if "same_as" in results[arm]:  # drawn once, under the arm whose runs it shares
            continue
        label = f"{arm} = {aliases[arm]}" if arm in aliases else arm
        curves = [series(d, RATIO_KEY) for d in results[arm]["dirs"]]
        n = min(len(s) for s, _ in curves)
        steps, values = curves[0][0][:n], np.stack([v[:n] for _, v in curves])
        window = max(1, n // 15)  # a running mean over ~n/15 steps: one step's ratio is noisy
        smooth = np.stack([np.convolve(v, np.ones(window) / window, mode="valid") for v in values])
        line, = ratio_ax.plot(steps[window - 1:], smooth.mean(0), label=label)
        ratio_ax.fill_between(steps[window - 1:], smooth.min(0), smooth.max(0), color=line.get_color(), alpha=0.2)
        acc = results[arm]["correct"]  # [seeds, levels, per_level]
        mean, interval = acc.mean((0, 2)), np.array(results[arm]["level_intervals"])  # [levels], [levels, 2]
        acc_ax.errorbar(np.array(levels) + 0.08 * ARMS.index(arm), mean, marker="o", capsize=3, label=label,
                        yerr=np.stack([mean - interval[:, 0], interval[:, 1] - mean]).clip(0))
    ratio_ax.set(xlabel="step", ylabel="effective prompt ratio (binary key)", ylim=(0, 1.05),
                 title="Informative groups / generated (mean, range over seeds)")
    ratio_ax.legend()
    for seed_index, run_dir in enumerate(results["adaptive"]["dirs"]):
        steps, values = series(run_dir, f"difficulty/{results['env']}")
        h_ax.step(steps, values, where="post", label=f"seed {seed_index}")
    h_ax.set(xlabel="step", ylabel="upper level h", title="Adaptive arm: h")
    h_ax.yaxis.get_major_locator().set_params(integer=True)
    h_ax.legend(fontsize=8)
    acc_ax.set(xlabel="level", ylabel="held-out accuracy (greedy)", ylim=(-0.02, 1.02),
               title="Held-out accuracy per level (95% interval)")
    acc_ax.xaxis.get_major_locator().set_params(integer=True)
    acc_ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs from one shared warm start")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=None, help="RL steps per arm (default: quick 30, full 200)")
    parser.add_argument("--eval-per-level", type=int, default=None, help="held-out problems per level")
    parser.add_argument("--warm-steps", type=int, default=None, help="warm-start steps (default: the config's)")
    parser.add_argument("--force", action="store_true", help="run the arms even if the go/no-go check fails")
    parser.add_argument("--workdir", default="/tmp/adaptive_vs_static")
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.WARNING)
    distributed.use_cpu_without_accelerators()
    steps = args.steps or (30 if args.quick else 200)
    per_level = args.eval_per_level or (24 if args.quick else 64)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - start:6.0f} s] {text}", flush=True)

    seeds = list(range(args.seeds))
    warm = {}
    for seed in seeds[:1] if args.quick else seeds:  # quick: the seeds share seed 0's warm start (RL seeds differ)
        say(f"warm start, seed {seed}")
        warm[seed] = warm_start(seed, workdir, args.warm_steps)
    warm = {seed: warm.get(seed, warm[0]) for seed in seeds}
    probe_config = base_config(0, workdir)
    go, probe_rows = go_no_go(warm[0], probe_config, 16)
    print(f"go/no-go on seed 0's warm start (T = 1, G = {probe_config.rollout.samples_per_prompt}, "
          "16 problems per level):")
    print("level  accuracy  effective ratio (binary)  distinct responses per group")
    for level, accuracy, ratio, distinct in probe_rows:
        print(f"{level:<5}  {accuracy:<8.3f}  {ratio:<24.2f}  {distinct:.1f}")
    if not go and not args.force:
        sys.exit(f"no-go: the warm-started policy does not explore where the arms need it (effective ratio < {GO_LOW} "
                 f"at levels 0-1 or > {GO_HIGH} over static-high's range); the arms could not show the effect")
    env_name = probe_config.env.collection
    results: dict = {arm: {"dirs": [], "levels": []} for arm in ARMS}
    results["env"] = env_name
    oracle_top = 0
    for arm in ARMS:  # adaptive first: its highest level sets the oracle's range
        if arm == "static-oracle" and (twin := oracle_twin(oracle_top)):  # the same arm: its runs, not a rerun
            results[arm] = {"same_as": twin}  # its fields are the twin's, copied once the twin is evaluated
            continue
        for seed in seeds:
            run_dir = workdir / f"{arm}_seed{seed}"
            config = arm_config(arm, seed, steps, workdir, warm[seed], oracle_top)
            if not (run_dir / "checkpoints" / str(steps)).exists():
                say(f"{arm}, seed {seed}: {steps} steps")
                run_trainer(config, run_dir, init_from=warm[seed])
            results[arm]["dirs"].append(run_dir)
            results[arm]["levels"].append(final_levels(run_dir)[env_name])
            results[arm]["config"] = config
        if arm == "adaptive":
            oracle_top = max(results[arm]["levels"])
    levels = list(range(max(oracle_top, STATIC_HIGH[1]) + 1))  # per-level curves beyond H too
    problems = problems_at(levels, per_level, EVAL_SEED_OFFSET, env_name)
    summary_top = max(oracle_top, STATIC_LOW[1])  # the table's levels: 0..H, and at least static-low's range
    upper_from = max(1, (summary_top + 1) // 2)  # the upper half of 0..summary_top
    rng = np.random.default_rng(0)
    rows = []
    for arm in ARMS:  # a twin comes before the arm that shares its runs
        same_as = results[arm].get("same_as")
        scheduled = " ".join(map(str, results[arm]["levels"])) if arm == "adaptive" else \
            "static [{}, {}]".format(*static_range(arm, oracle_top))
        if same_as is not None:  # the same runs: the same cells
            results[arm] = {**results[same_as], "same_as": same_as}
            rows.append((arm, *rows[ARMS.index(same_as)][1:4], f"{scheduled} (= {same_as}'s runs)"))
            continue
        config = results[arm]["config"]
        say(f"held-out evaluation: {arm}")
        correct = np.stack([np.array([r["accuracy"] for r in sample_run(d, config, problems, 1, 0.0)], float)
                            for d in results[arm]["dirs"]])  # [seeds, problems]
        by_level = correct.reshape(len(seeds), len(levels), per_level)
        results[arm]["correct"] = by_level
        results[arm]["level_intervals"] = [bootstrap_interval(by_level[:, i], rng) for i in range(len(levels))]
        ratios = [series(d, RATIO_KEY)[1] for d in results[arm]["dirs"]]
        second_half = np.array([r[len(r) // 2:].mean() for r in ratios])
        rows.append((arm, f"{second_half.mean():.3f} ± {second_half.std():.3f}",
                     accuracy_cell(by_level[:, :summary_top + 1].reshape(len(seeds), -1), rng),
                     accuracy_cell(by_level[:, upper_from:summary_top + 1].reshape(len(seeds), -1), rng), scheduled))
    header = ("arm", "effective prompt ratio (2nd half)", f"held-out accuracy, levels 0..{summary_top}",
              f"levels {upper_from}..{summary_top}", "final h per seed (adaptive)")
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    print(f"\n{env_name}: {args.seeds} seeds x {steps} RL steps per arm; held-out: {len(problems)} problems "
          f"({per_level} per level), greedy, 95% intervals over seeds and problems; "
          f"static-low = {list(STATIC_LOW)}, static-high = {list(STATIC_HIGH)}")
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
    per_level_table = {arm: results[arm]["correct"].mean((0, 2)).round(3).tolist() for arm in ARMS}
    print("held-out accuracy per level " + " ".join(f"{level:>5}" for level in levels))
    for arm in ARMS:
        print(f"{arm:<27} " + " ".join(f"{a:5.2f}" for a in per_level_table[arm]))
    plot(results, levels, workdir / "adaptive_vs_static.png")
    print(f"figure: {workdir / 'adaptive_vs_static.png'}; wall time {time.perf_counter() - start:.0f} s")
    (workdir / "table.json").write_text(json.dumps({"rows": rows, "oracle_top": oracle_top, "steps": steps,
                                                    "probe": probe_rows, "per_level": per_level_table}, indent=1,
                                                   default=float))


if __name__ == "__main__":
    main()
