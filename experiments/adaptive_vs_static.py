"""The paper's adaptivity result (its Fig. 3) in a CPU miniature: adaptive difficulty against three static
level ranges, from the same warm-started policy, with the same budget, paired within each seed.

    python experiments/adaptive_vs_static.py --quick                 # smoke test: 3 RL seeds x 40 steps, one warm start
    python experiments/adaptive_vs_static.py                         # 5 seeds x 200 steps, a warm start per seed
    python experiments/adaptive_vs_static.py --first-seed 10          # the same design on seeds 10..14
    python experiments/adaptive_vs_static.py --choose-warm-steps --first-seed 100   # the warm-start length rule

The design, fixed before the full run from training-side probes only (problems whose seeds neither the runs
nor the held-out set use; shared/notes/miniature_probes.md has the probes):
- Policy and task (configs/miniature.py): Sorting (level d sorts a list of 3, 4, 5, ... numbers: the skill
  of one level carries to the next), the `micro` policy, the tiny tokenizer without the word split (Sorting's
  prompt is 24 tokens instead of 88), 8 prompts x 8 samples per step, binary accuracy as the reward.
- Learning rate 1e-4 (warm-up over 10 steps from lr / 10). Measured on probes: at 5e-4 training accuracy fell
  in all six RL runs of the old quick mode and greedy level-0 accuracy dropped 0.97 -> 0.78 in 60 steps;
  at 1e-4 nothing eroded and the trained level gained +0.10-0.16 per 100 steps.
- Warm start: supervised steps over levels 0-3, its length the shortest of 400, 800, 1200 steps whose T = 1
  accuracy at levels 0 and 1 reaches 0.9 on the go/no-go problems (`--choose-warm-steps` applies the rule on
  seeds no table uses; it chose configs/miniature.py's warm_start.steps). A 400-step warm start cannot be
  promoted by the paper's rule (T = 1 accuracy 0.6-0.8 at level 0): that run is kept in the README as a result.
- Arms (the paper's four) and the warm start itself as a fifth row, "no RL":
    adaptive       the RLVE scheduler with the paper's exact rule: promote h at accuracy >= 0.9 over >= 32
                   rollouts at h, window 4
    static-low     levels uniformly from [0, 1] (mastered by the warm start)
    static-oracle  levels uniformly from [0, H], H the highest h adaptive reached (max over seeds); when
                   [0, H] is static-low's range, static-low's runs stand for it, and adaptive's when H = 0
    static-high    levels uniformly from [a, a + 3], a the lowest level above the warm start's and the frontier's
                   whose go/no-go informative ratio is <= 0.05 on every seed's warm start (by rule, never by
                   results)
- Go/no-go per seed, on its own warm start (T = 1, G = 8, 32 problems per level): T = 1 accuracy >= 0.9 at
  levels 0 and 1 (the rule can leave them), an informative ratio >= 0.3 at some level of the frontier
  (something to learn), and static-high's mean ratio <= 0.1 (too hard). A seed that fails is reported as failed and kept
  in every table (seeds are fixed in advance); the script stops only when every seed fails.
- Held-out: >= 256 problems per level at levels 0..8, greedy, whose prompt text differs from every problem
  the warm starts and the arms could have drawn (every problem seed they used, at every level) and from each
  other. Level 0 has only 4,096 distinct lists, most of them drawn in training: its count is printed.
- Headline: per-seed paired differences on the same held-out problems at the frontier: adaptive minus each
  static arm, mean over seeds with a 95% t-interval and the sign count; and each row minus the warm start
  (adaptive's own gain against the static arms' erosion). The frontier is fixed by rule on the go/no-go
  problems: from the lowest level the warm starts' mean T = 1 accuracy leaves below 0.9 to the highest it
  keeps at >= 0.05 (the levels RL can still move).
- Seeds: full 5, each with its own warm start; --quick: 3 RL seeds from one shared warm start, 40 steps, 64
  held-out problems per level (a smoke test of the pipeline, the go/no-go and the ratio curves: 40 steps
  cannot resolve the skill gap). Problem streams differ between seeds (gym/scheduler's seed blocks).
--curricula adds the samplers learnability and thompson (rlve_jax/gym/scheduler/cells.py) as arms, paired
against adaptive like the static arms. Every run directory records its config's hash (of the keys set away
from the defaults); a rerun reuses a run only when the hash matches and stops, naming the directory, when it
does not, and reuses its held-out accuracy (run_dir/held_out.json) when the held-out problems are the same.
Prints the go/no-go per seed, the table, the paired differences and the per-level accuracy; writes
WORKDIR/adaptive_vs_static.png and WORKDIR/table.json; reports wall and CPU time.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import resource
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlve_jax.builder import build_trainer  # noqa: E402
from rlve_jax.defaults import base_config as base_defaults, experiment  # noqa: E402
from rlve_jax.evaluation.evaluate import eval_generator, eval_policy, evaluate_problems  # noqa: E402
from rlve_jax.generation.generator import SamplingSettings  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.pool import EnvPool  # noqa: E402
from rlve_jax.gym.scheduler import first_problem_seed  # noqa: E402
from rlve_jax.rl.warm_start import draws as warm_start_draws  # noqa: E402
from rlve_jax.runtime import distributed  # noqa: E402
from rlve_jax.runtime.checkpoint import Checkpointer  # noqa: E402
from rlve_jax.runtime.metrics import read_records  # noqa: E402

EVAL_SEED_OFFSET = 1 << 41  # held-out candidates: seeds no run draws (inside run seed 0's block, past its streams)
PROBE_SEED_OFFSET = 1 << 42  # the go/no-go problems
LEVEL_STRIDE = 1 << 20  # candidate seeds per level
ARMS = ("adaptive", "static-low", "static-oracle", "static-high")
CURRICULA = ("learnability", "thompson")  # --curricula: other samplers (gym/scheduler/cells.py) as extra arms
WARM_ROW = "no RL (warm start)"
RATIO_KEY = "rollout/effective_prompt_ratio_accuracy"
STATIC_LOW = (0, 1)
MASTERED = (0, 1)  # go/no-go: the paper's rule can leave these levels (T = 1 accuracy >= GO_ACCURACY)
GO_ACCURACY, GO_FRONTIER_RATIO, GO_HIGH_RATIO = 0.9, 0.3, 0.1
FRONTIER_ACCURACY = 0.05  # the frontier: levels the warm starts solve at T = 1 in [0.05, 0.9) on average
HIGH_START_RATIO, HIGH_WIDTH = 0.05, 4  # static-high: [a, a + 3], a's ratio <= 0.05 on every seed
PROBE_LEVELS = range(10)
PROBE_PER_LEVEL = 32
EVAL_LEVELS = range(9)
WARM_LENGTHS = (400, 800, 1200)
CONFIG_HASH_FILE = "config.sha256"


# ---------------------------------------------------------------------------
# Runs: configs, reuse by config hash, the trainer


def base_config(seed: int, workdir: Path, warm_steps: int | None = None):
    config = experiment("miniature")
    config.seed = seed
    if warm_steps is not None:
        config.warm_start.steps = warm_steps
    config.log.progress = config.log.tensorboard = False
    config.compilation_cache_dir = str(workdir / "jax_cache")  # every arm compiles the same shapes once
    return config


def arm_config(arm: str, seed: int, steps: int, workdir: Path, warm_dir: Path, static: tuple[int, int] | None):
    """One arm's config for one seed, starting from the warm start in warm_dir (no warm start of its own)."""
    config = base_config(seed, workdir)
    config.steps = steps
    config.warm_start.steps = 0
    config.tokenizer.path = str(warm_dir / "tokenizer")
    config.checkpoint.every = steps  # only the final step: the arms' checkpoints are not needed
    if arm in CURRICULA:
        config.scheduler.kind = arm
    elif arm != "adaptive":
        config.scheduler.kind = "static"
        config.scheduler.static_lo, config.scheduler.static_hi = static
    return config


def oracle_twin(oracle_top: int) -> str | None:
    """The arm whose runs already are static-oracle's: static-low's when [0, H] is its range; adaptive's when
    H = 0 (h never falls, so every adaptive seed trained on level 0 alone, which is the static range [0, 0])."""
    return "static-low" if (0, oracle_top) == STATIC_LOW else "adaptive" if oracle_top == 0 else None


def flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in tree.items():
        out.update(flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {f"{prefix}{key}": value})
    return out


def config_hash(config) -> str:
    """The hash of what the config sets away from the defaults: a key added later at its default value leaves the
    hash of an existing run unchanged."""
    defaults = flat(base_defaults().to_dict())
    changed = {key: value for key, value in flat(config.to_dict()).items() if defaults.get(key, ()) != value}
    return hashlib.sha256(json.dumps(changed, sort_keys=True, default=str).encode()).hexdigest()


def claim_run_dir(run_dir: Path, config) -> None:
    """Record the config's hash in run_dir, or check the one recorded there: a directory made with another
    config is never reused (its results would be reported as this config's)."""
    path = run_dir / CONFIG_HASH_FILE
    digest = config_hash(config)
    if path.exists() and path.read_text().strip() != digest:
        sys.exit(f"{run_dir} was made with another config (its {CONFIG_HASH_FILE} differs): delete it or pass "
                 "another --workdir")
    if not path.exists() and run_dir.exists() and any(run_dir.iterdir()):
        sys.exit(f"{run_dir} holds a run without a {CONFIG_HASH_FILE}: delete it or pass another --workdir")
    run_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(digest + "\n")


def run_trainer(config, workdir: Path, init_from: Path | None = None) -> None:
    """Run (or resume) the trainer in workdir, starting from init_from's step-0 parameters if given; what it
    prints goes to workdir/trainer.log."""
    claim_run_dir(workdir, config)
    with open(workdir / "trainer.log", "a") as log_file, contextlib.redirect_stdout(log_file):
        trainer = build_trainer(config, workdir)
        try:
            if init_from is not None:
                checkpointer = Checkpointer(init_from)
                trainer.policy.params = checkpointer.restore_params(0, trainer.policy.params)
                checkpointer.close()
            trainer.run()
        finally:
            trainer.close()


def warm_start(seed: int, workdir: Path, warm_steps: int | None = None) -> Path:
    """The seed's supervised warm start, once (its step-0 checkpoint holds the starting parameters)."""
    config = base_config(seed, workdir, warm_steps)
    config.steps = 0
    out = workdir / f"warm_seed{seed}_{config.warm_start.steps}"
    if not (out / "checkpoints" / "0").exists():
        run_trainer(config, out)
    else:
        claim_run_dir(out, config)
    return out


def run_arm(arm: str, seed: int, steps: int, workdir: Path, warm_dir: Path, static) -> Path:
    run_dir = workdir / f"{arm}_seed{seed}"
    config = arm_config(arm, seed, steps, workdir, warm_dir, static)
    if (run_dir / "checkpoints" / str(steps)).exists():
        claim_run_dir(run_dir, config)
    else:
        run_trainer(config, run_dir, init_from=warm_dir)
    return run_dir


# ---------------------------------------------------------------------------
# Sampling a run's policy: the go/no-go probe, the held-out evaluation


def sample_run(run_dir: Path, config, problems, samples: int, temperature: float) -> list[dict]:
    """Every response of the run's latest parameters to the problems: one record per response, in order."""
    config = config.copy_and_resolve_references()
    config.eval.checkpoint = str(run_dir)
    policy = eval_policy(config, run_dir / "eval")
    settings = SamplingSettings(samples, config.rollout.max_response_tokens, temperature=temperature)
    with EnvPool(workers=config.env.workers, timeout_s=config.env.timeout_s,
                 memory_limit_mb=config.env.memory_limit_mb) as pool:
        generator = eval_generator(policy, problems, settings, config.rollout)
        _, records, _ = evaluate_problems(policy, pool, problems, settings, generator, seed=0, batch_prompts=256,
                                          progress=False)
    return records


def held_out_accuracy(run_dir: Path, config, problems) -> np.ndarray:
    """Greedy accuracy per problem of the run's latest parameters, kept in run_dir/held_out.json under a hash of the
    problems: a rerun (another arm added, a table redrawn) evaluates each run once."""
    key = hashlib.sha256(json.dumps([(p.env, p.difficulty, p.seed) for p in problems]).encode()).hexdigest()
    path = run_dir / "held_out.json"
    if path.exists() and (kept := json.loads(path.read_text())).get("problems") == key:
        return np.array(kept["accuracy"], float)
    accuracy = [r["accuracy"] for r in sample_run(run_dir, config, problems, 1, 0.0)]
    path.write_text(json.dumps({"problems": key, "accuracy": accuracy}))
    return np.array(accuracy, float)


def probe(warm_dir: Path, config) -> dict[int, tuple[float, float, float]]:
    """The warm-started policy at T = 1 with G samples per problem: per level, (accuracy, informative ratio on
    the binary key, distinct responses per group)."""
    env = registry.make(config.env.collection)
    problems = [env.generate(level, PROBE_SEED_OFFSET + level * LEVEL_STRIDE + i)
                for level in PROBE_LEVELS for i in range(PROBE_PER_LEVEL)]
    records = sample_run(warm_dir, config, problems, config.rollout.samples_per_prompt, 1.0)
    groups: dict[tuple[int, int], list[dict]] = {}
    for r in records:
        groups.setdefault((r["difficulty"], r["seed"]), []).append(r)
    rows = {}
    for level in PROBE_LEVELS:
        level_groups = [g for (d, _), g in groups.items() if d == level]
        rows[level] = (float(np.mean([r["accuracy"] for g in level_groups for r in g])),
                       float(np.mean([len({r["accuracy"] for r in g}) > 1 for g in level_groups])),
                       float(np.mean([len({r["response"] for r in g}) for g in level_groups])))
    return rows


def frontier_levels(probes: list[dict[int, tuple]]) -> tuple[int, int]:
    """[lo, hi]: from the lowest level the warm starts' mean T = 1 accuracy leaves unmastered (< GO_ACCURACY) to
    the highest they still solve sometimes (>= FRONTIER_ACCURACY); [lo, lo] where accuracy falls off a cliff."""
    mean = {level: float(np.mean([rows[level][0] for rows in probes])) for level in PROBE_LEVELS}
    lo = next((level for level in PROBE_LEVELS if mean[level] < GO_ACCURACY), max(PROBE_LEVELS))
    return lo, max([level for level in PROBE_LEVELS if mean[level] >= FRONTIER_ACCURACY and level >= lo], default=lo)


def go_no_go(rows: dict[int, tuple], frontier: tuple[int, int], high: tuple[int, int]) -> list[str]:
    """Why a warm start cannot show the effect (empty: go)."""
    failures = [f"T = 1 accuracy {rows[level][0]:.2f} < {GO_ACCURACY} at level {level}"
                for level in MASTERED if rows[level][0] < GO_ACCURACY]
    if max(rows[level][1] for level in range(frontier[0], frontier[1] + 1)) < GO_FRONTIER_RATIO:
        failures.append(f"informative ratio < {GO_FRONTIER_RATIO} at every level of the frontier {list(frontier)}")
    high_ratio = float(np.mean([rows[level][1] for level in range(high[0], high[1] + 1)]))
    if high_ratio > GO_HIGH_RATIO:
        failures.append(f"static-high's mean ratio {high_ratio:.2f} > {GO_HIGH_RATIO}")
    return failures


def choose_static_high(probes: list[dict[int, tuple]], above: int) -> tuple[int, int]:
    """[a, a + 3] for the lowest level a above `above` whose informative ratio is <= HIGH_START_RATIO on every
    warm start (levels beyond the probed ones: the last probed start)."""
    last_start = max(PROBE_LEVELS) - HIGH_WIDTH + 1
    start = next((a for a in range(above + 1, last_start + 1)
                  if all(rows[a][1] <= HIGH_START_RATIO for rows in probes)), last_start)
    return start, start + HIGH_WIDTH - 1


def training_prompts(env_name: str, warm_seeds: list[int], warm_config, seeds: list[int], arm_config_,
                     levels) -> set[str]:
    """Every prompt the warm starts and the arms could have drawn: the warm starts' streams, and every problem
    seed an arm's scheduler can reach (steps x rounds x prompts per round) at every level."""
    env = registry.make(env_name)
    prompts = set()
    for seed in warm_seeds:
        stream = warm_start_draws([env_name], warm_config.warm_start.max_difficulty, seed)
        for _ in range(warm_config.warm_start.steps * warm_config.warm_start.batch_size):  # Sorting never fails
            _, level, problem_seed = next(stream)
            prompts.add(env.generate(level, problem_seed).prompt)
    reach = arm_config_.steps * arm_config_.rollout.max_rounds * arm_config_.rollout.oversample_prompts
    for seed in seeds:
        first = first_problem_seed(seed)
        prompts.update(env.generate(level, first + i).prompt for level in levels for i in range(reach))
    return prompts


def held_out(env_name: str, levels, per_level: int, exclude: set[str]) -> tuple[list, dict[int, int]]:
    """Up to per_level problems per level whose prompts are distinct and not in `exclude` (a level with fewer
    unseen problems gives what it has), and the count per level."""
    env = registry.make(env_name)
    problems, counts = [], {}
    for level in levels:
        seen = set(exclude)
        chosen = []
        for i in range(64 * per_level):
            if len(chosen) == per_level:
                break
            problem = env.generate(level, EVAL_SEED_OFFSET + level * LEVEL_STRIDE + i)
            if problem.prompt not in seen:
                seen.add(problem.prompt)
                chosen.append(problem)
        problems += chosen
        counts[level] = len(chosen)
    return problems, counts


# ---------------------------------------------------------------------------
# Statistics


def bootstrap_interval(correct: np.ndarray, rng: np.random.Generator, draws: int = 2000) -> tuple[float, float]:
    """95% interval of the mean of correct [seeds, problems]: seeds resampled, then problems within each."""
    seeds, problems = correct.shape
    means = np.empty(draws)
    for i in range(draws):
        picked = correct[rng.integers(0, seeds, seeds)]  # [seeds, problems]
        means[i] = np.take_along_axis(picked, rng.integers(0, problems, picked.shape), 1).mean()
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def paired_difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float, int]:
    """a, b [seeds, problems] on the same problems: the mean over seeds of each seed's mean difference, its 95%
    t-interval over seeds (nan with one seed), and the number of seeds where a is ahead."""
    per_seed = (a - b).mean(1)  # [seeds]
    mean = float(per_seed.mean())
    if len(per_seed) < 2:
        return mean, float("nan"), float("nan"), int((per_seed > 0).sum())
    half = float(stats.t.ppf(0.975, len(per_seed) - 1) * per_seed.std(ddof=1) / np.sqrt(len(per_seed)))
    return mean, mean - half, mean + half, int((per_seed > 0).sum())


def difference_cell(a: np.ndarray, b: np.ndarray) -> str:
    mean, lo, hi, ahead = paired_difference(a, b)
    return f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}]  {ahead}/{len(a)} seeds ahead"


# ---------------------------------------------------------------------------
# Output


def series(workdir: Path, key: str) -> tuple[np.ndarray, np.ndarray]:
    train = [r for r in read_records(workdir) if r.get("kind") == "train" and key in r]
    return np.array([r["step"] for r in train]), np.array([r[key] for r in train], float)


def final_level(workdir: Path, env_name: str) -> int:
    return int(series(workdir, f"difficulty/{env_name}")[1][-1])


def print_table(header: tuple, rows: list[tuple]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


def plot(runs: dict, level_means: dict, intervals: dict, env_name: str, levels: list[int], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ratio_ax, h_ax, acc_ax) = plt.subplots(1, 3, figsize=(17, 4.5))
    color = {row: f"C{i}" for i, row in enumerate(row for row in level_means if row != WARM_ROW)} | {WARM_ROW: "0.4"}
    for arm, dirs in runs.items():
        curves = [series(d, RATIO_KEY) for d in dirs]
        n = min(len(s) for s, _ in curves)
        steps, values = curves[0][0][:n], np.stack([v[:n] for _, v in curves])
        window = max(1, n // 15)  # a running mean over ~n/15 steps: one step's ratio is noisy
        smooth = np.stack([np.convolve(v, np.ones(window) / window, mode="valid") for v in values])
        ratio_ax.plot(steps[window - 1:], smooth.mean(0), label=arm, color=color[arm])
        ratio_ax.fill_between(steps[window - 1:], smooth.min(0), smooth.max(0), color=color[arm], alpha=0.2)
    ratio_ax.set(xlabel="step", ylabel="effective prompt ratio (binary key)", ylim=(0, 1.05),
                 title="Informative groups / generated (mean, range over seeds)")
    ratio_ax.legend(fontsize=8)
    for seed_index, run_dir in enumerate(runs["adaptive"]):
        steps, values = series(run_dir, f"difficulty/{env_name}")
        h_ax.step(steps, values, where="post", label=f"seed {seed_index}")
    h_ax.set(xlabel="step", ylabel="upper level h", title="Adaptive arm: h (the paper's rule)")
    h_ax.yaxis.get_major_locator().set_params(integer=True)
    h_ax.legend(fontsize=8)
    for i, (row, means) in enumerate(level_means.items()):
        mean, interval = np.array(means), np.array(intervals[row])  # [levels], [levels, 2]
        acc_ax.errorbar(np.array(levels) + 0.08 * i, mean, marker="o", capsize=3, label=row, color=color[row],
                        yerr=np.stack([mean - interval[:, 0], interval[:, 1] - mean]).clip(0))
    acc_ax.set(xlabel="level", ylabel="held-out accuracy (greedy)", ylim=(-0.02, 1.02),
               title="Held-out accuracy per level (95% interval)")
    acc_ax.xaxis.get_major_locator().set_params(integer=True)
    acc_ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def cpu_seconds() -> float:
    """User + system CPU time of this process and its finished children (the pool's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# ---------------------------------------------------------------------------
# Modes


def choose_warm_steps(seeds: list[int], workdir: Path, say) -> None:
    """The warm-start length rule on these (probe) seeds: the shortest length whose T = 1 accuracy at levels 0
    and 1 reaches GO_ACCURACY on every seed."""
    config = base_config(seeds[0], workdir)
    for steps in WARM_LENGTHS:
        passed = True
        for seed in seeds:
            say(f"warm start of {steps} steps, seed {seed}")
            rows = probe(warm_start(seed, workdir, steps), config)
            print(f"  seed {seed}: T = 1 accuracy per level " + " ".join(f"{rows[lv][0]:.2f}" for lv in PROBE_LEVELS))
            passed &= all(rows[level][0] >= GO_ACCURACY for level in MASTERED)
        if passed:
            print(f"rule: warm_start.steps = {steps}")
            return
    print(f"rule: no length in {WARM_LENGTHS} reaches T = 1 accuracy {GO_ACCURACY} at levels {list(MASTERED)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short runs from one shared warm start")
    parser.add_argument("--seeds", type=int, default=None, help="seeds (default: quick 3, full 5)")
    parser.add_argument("--first-seed", type=int, default=0, help="seeds are first-seed, first-seed + 1, ...")
    parser.add_argument("--steps", type=int, default=None, help="RL steps per arm (default: quick 40, full 200)")
    parser.add_argument("--eval-per-level", type=int, default=None, help="held-out problems per level "
                                                                         "(default: quick 64, full 256)")
    parser.add_argument("--warm-steps", type=int, default=None, help="warm-start steps (default: the config's)")
    parser.add_argument("--choose-warm-steps", action="store_true",
                        help="apply the warm-start length rule on these seeds and stop")
    parser.add_argument("--force", action="store_true", help="run the arms even if every seed fails go/no-go")
    parser.add_argument("--curricula", action="store_true",
                        help=f"also the samplers {', '.join(CURRICULA)} as arms (README 'Curricula')")
    parser.add_argument("--workdir", default="/tmp/adaptive_vs_static")
    args = parser.parse_args()
    logging.getLogger().setLevel(logging.WARNING)
    distributed.use_cpu_without_accelerators()
    seeds = list(range(args.first_seed, args.first_seed + (args.seeds or (3 if args.quick else 5))))
    steps = args.steps or (40 if args.quick else 200)
    per_level = args.eval_per_level or (64 if args.quick else 256)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def say(text: str) -> None:
        print(f"[{time.perf_counter() - start:6.0f} s] {text}", flush=True)

    if args.choose_warm_steps:
        choose_warm_steps(seeds, workdir, say)
        return
    warm_seeds = seeds[:1] if args.quick else seeds  # quick: the RL seeds share the first seed's warm start
    warm_of = {seed: warm_seeds[0] if args.quick else seed for seed in seeds}
    warm_dirs, probes = {}, {}
    for seed in warm_seeds:
        say(f"warm start, seed {seed}")
        warm_dirs[seed] = warm_start(seed, workdir, args.warm_steps)
        probes[seed] = probe(warm_dirs[seed], base_config(seed, workdir))
    warm = {seed: warm_dirs[warm_of[seed]] for seed in seeds}
    config = base_config(seeds[0], workdir, args.warm_steps)
    frontier = frontier_levels(list(probes.values()))
    high = choose_static_high(list(probes.values()), max(config.warm_start.max_difficulty, frontier[1]))
    failed = {seed: go_no_go(probes[warm_of[seed]], frontier, high) for seed in seeds}
    print(f"\ngo/no-go per seed, on its warm start (T = 1, G = {config.rollout.samples_per_prompt}, {PROBE_PER_LEVEL} "
          f"problems per level); by rule: the frontier (the headline's levels) = {list(frontier)}, static-high = "
          f"{list(high)}")
    print_table(("seed", "warm start", "level: accuracy / informative ratio / distinct responses", "verdict"),
                [(seed, f"seed {warm_of[seed]}'s", "  ".join(f"{lv}: {a:.2f}/{r:.2f}/{d:.1f}"
                                                              for lv, (a, r, d) in probes[warm_of[seed]].items()),
                  "go" if not failed[seed] else "NO-GO: " + "; ".join(failed[seed])) for seed in seeds])
    if all(failed.values()) and not args.force:
        sys.exit("no-go on every seed: no arm could show the effect (--force runs them anyway)")

    env_name = config.env.collection
    runs: dict[str, list[Path]] = {}
    oracle_top = 0
    arms = ARMS + (CURRICULA if args.curricula else ())
    for arm in arms:  # adaptive first: its highest level sets the oracle's range
        if arm == "static-oracle" and (twin := oracle_twin(oracle_top)):  # the same runs: not rerun
            continue
        static = {"static-low": STATIC_LOW, "static-oracle": (0, oracle_top), "static-high": high}.get(arm)
        runs[arm] = []
        for seed in seeds:
            say(f"{arm}, seed {seed}: {steps} steps")
            runs[arm].append(run_arm(arm, seed, steps, workdir, warm[seed], static))
        if arm == "adaptive":
            oracle_top = max(final_level(d, env_name) for d in runs[arm])
    twin = oracle_twin(oracle_top)

    say("held-out problems: deduplicated against every problem the runs could have drawn")
    arm_config_ = arm_config("adaptive", seeds[0], steps, workdir, warm[seeds[0]], None)
    levels = list(EVAL_LEVELS)
    exclude = training_prompts(env_name, warm_seeds, config, seeds, arm_config_, levels)
    problems, counts = held_out(env_name, levels, per_level, exclude)
    level_of = np.array([p.difficulty for p in problems])
    correct: dict[str, np.ndarray] = {}  # row -> [seeds, problems]
    for row, dirs in [(WARM_ROW, [warm[seed] for seed in seeds]), *runs.items()]:
        say(f"held-out evaluation: {row}")
        correct[row] = np.stack([held_out_accuracy(d, arm_config_, problems) for d in dirs])
    if twin is not None:
        correct["static-oracle"], runs["static-oracle"] = correct[twin], runs[twin]
    correct = {row: correct[row] for row in (WARM_ROW, *arms)}

    rng = np.random.default_rng(0)
    headline = np.isin(level_of, range(frontier[0], frontier[1] + 1))
    rows = []
    for row, acc in correct.items():
        ratio = "-" if row == WARM_ROW else "{:.3f} ± {:.3f}".format(
            *(lambda r: (r.mean(), r.std()))(np.array([v[len(v) // 2:].mean() for _, v in
                                                       (series(d, RATIO_KEY) for d in runs[row])])))
        lo, hi = bootstrap_interval(acc[:, headline], rng)
        scheduled = {WARM_ROW: "levels 0-3, supervised", "adaptive": "h = " + " ".join(
            str(final_level(d, env_name)) for d in runs["adaptive"]), "static-low": "[0, 1]",
            "static-oracle": f"[0, {oracle_top}]" + (f" (= {twin}'s runs)" if twin else ""),
            "static-high": f"{list(high)}",
            **{name: f"cells 0-{config.scheduler.max_level}, expected level " + " ".join(
                f"{series(d, f'difficulty/{env_name}')[1][-1]:.1f}" for d in runs[name]) for name in CURRICULA
               if name in runs}}[row]
        rows.append((row, ratio, f"{acc[:, headline].mean():.3f} [{lo:.3f}, {hi:.3f}]",
                     "-" if row == WARM_ROW else difference_cell(acc[:, headline], correct[WARM_ROW][:, headline]),
                     scheduled))
    frontier_text = f"levels {frontier[0]}-{frontier[1]}"
    go_seeds = [seed for seed in seeds if not failed[seed]]
    print(f"\n{env_name}: seeds {seeds[0]}..{seeds[-1]} ({len(go_seeds)} of {len(seeds)} passed go/no-go), {steps} RL "
          f"steps per arm; held-out: greedy, {int(headline.sum())} problems at {frontier_text}; "
          "95% intervals: bootstrap over seeds and problems (accuracy), t over seeds (paired differences)")
    print_table(("row", "effective prompt ratio (2nd half)", f"held-out accuracy, {frontier_text}",
                 "minus the warm start (paired)", "levels trained"), rows)
    print(f"\nheadline: adaptive minus each other arm, paired per seed, {frontier_text}")
    print_table(("vs", "difference [95% interval]  sign count"),
                [(arm, difference_cell(correct["adaptive"][:, headline], correct[arm][:, headline]))
                 for arm in arms[1:]])
    if empty := [lv for lv in levels if not counts[lv]]:  # e.g. Sorting level 0: every list drawn in training
        print(f"\nno held-out problem at level(s) {empty}: every distinct prompt there is one the runs could draw")
    levels = [lv for lv in levels if counts[lv]]
    intervals = {row: [bootstrap_interval(acc[:, level_of == lv], rng) for lv in levels]
                 for row, acc in correct.items()}
    level_means = {row: [float(acc[:, level_of == lv].mean()) for lv in levels] for row, acc in correct.items()}
    print("\nheld-out accuracy per level    " + " ".join(f"{lv:>5}" for lv in levels))
    print(f"{'problems':<30} " + " ".join(f"{counts[lv]:>5}" for lv in levels))
    for row in correct:
        print(f"{row:<30} " + " ".join(f"{a:5.2f}" for a in level_means[row]))
    plot({arm: runs[arm] for arm in arms if arm != "static-oracle" or twin is None}, level_means, intervals, env_name,
         levels, workdir / "adaptive_vs_static.png")
    wall, cpu = time.perf_counter() - start, cpu_seconds()
    print(f"figure: {workdir / 'adaptive_vs_static.png'}; wall time {wall:.0f} s, CPU time {cpu:.0f} s "
          f"(user + system, with the pool's workers)")
    (workdir / "table.json").write_text(json.dumps({
        "seeds": seeds, "steps": steps, "frontier": frontier, "static_high": high, "oracle_top": oracle_top,
        "rows": rows,
        "go_no_go": {seed: {"warm_start": warm_of[seed], "failures": failed[seed]} for seed in seeds},
        "probes": probes,
        "held_out_counts": counts, "per_level": level_means, "wall_s": wall, "cpu_s": cpu}, indent=1, default=float))


if __name__ == "__main__":
    main()
