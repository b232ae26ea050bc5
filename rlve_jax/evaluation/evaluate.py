"""Evaluation: the frozen held-out environment set, the paper's reasoning benchmarks, pass@k.

    python -m rlve_jax.main --config=configs/eval_heldout.py --config.model.path=DIR
    python -m rlve_jax.main --config=configs/eval_benchmarks.py --config.model.path=DIR
    python -m rlve_jax.main --config=configs/eval_code.py --config.model.path=DIR --config.eval.code_path=DATA
    python -m rlve_jax.evaluation.evaluate build-heldout --out rlve_jax/data/heldout_test.jsonl   # regenerate the frozen set

Every answer is judged in the worker pool (hard time and memory limits): environment
verifiers for the held-out set; math-verify (LaTeX parsing only, never Python evaluation)
for the math benchmarks; normalised exact match for BBEH.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import logging
import os
import random
import re
import time
from pathlib import Path
from typing import Callable, Sequence

import jax
import ml_collections
from tqdm import tqdm

from rlve_jax.defaults import settings
from rlve_jax.evaluation.scores import format_summary, summarize
from rlve_jax.generation.generator import Generator, GeneratorSettings, SamplingSettings, longest_prompt, make_generator
from rlve_jax.gym import registry
from rlve_jax.gym.env import Environment, Problem, Verdict, extract_answer
from rlve_jax.gym.pool import EnvPool
from rlve_jax.gym.prompts import PromptFormat
from rlve_jax.models.model import ModelConfig
from rlve_jax.models.policy import Policy, load_policy
from rlve_jax.rl.rollout import RolloutStats, sample_groups
from rlve_jax.runtime import distributed
from rlve_jax.runtime.checkpoint import Checkpointer

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parents[1] / "data"  # rlve_jax/data: package data, ships in the wheel
HELDOUT_PATH = DATA_DIR / "heldout_test.jsonl"
BENCHMARK_DIR = DATA_DIR / "benchmarks"
# name -> (file, samples per problem k for Avg@k, judge)
BENCHMARKS = {
    "aime24": ("aime24.json", 64, "math"),
    "aime25": ("aime25.json", 64, "math"),
    "omega500": ("omega500.json", 4, "math"),
    "olympiadbench": ("olympiadbench.json", 4, "math"),
    "bbeh": ("bbeh.json", 4, "exact"),
}


# ---------------------------------------------------------------------------
# The frozen held-out set


def build_heldout(env_names: Sequence[str] = registry.HELD_OUT, per_level: int = 10,
                  difficulties: Sequence[int] = range(5), max_attempts: int = 200) -> list[Problem]:
    """per_level problems at each difficulty for each environment, from one increasing seed
    counter, skipping duplicate prompts (as the original did). Where a level has fewer distinct
    problems than per_level, the shortfall is drawn from the next levels (the original's
    SmallestBinaryMultiple went beyond difficulty 4 the same way)."""
    problems: list[Problem] = []
    seed = 0
    for env in registry.make_all(list(env_names)):
        seen: set[str] = set()
        owed = 0
        level = 0
        for level in difficulties:
            owed += per_level
            owed -= _draw_distinct(env, level, owed, seen, problems, max_attempts, seed)
            seed += max_attempts
        while owed > 0:  # levels too small: continue upwards
            level += 1
            owed -= _draw_distinct(env, level, owed, seen, problems, max_attempts, seed)
            seed += max_attempts
    return problems


def _draw_distinct(env: Environment, level: int, count: int, seen: set[str], out: list[Problem],
                   max_attempts: int, first_seed: int) -> int:
    """Append up to `count` problems with unseen prompts; returns how many were added."""
    added = 0
    for seed in range(first_seed, first_seed + max_attempts):
        if added == count:
            break
        problem = env.generate(level, seed)
        if problem.prompt not in seen:
            seen.add(problem.prompt)
            out.append(problem)
            added += 1
    return added


def load_problems(path: str | Path = HELDOUT_PATH) -> list[Problem]:
    with open(path, encoding="utf-8") as f:
        return [Problem.from_json(line) for line in f if line.strip()]


def write_problems(problems: Sequence[Problem], path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(p.to_json() + "\n" for p in problems)


# ---------------------------------------------------------------------------
# Benchmark judges (run inside pool workers, like environment verifiers)

_BBEH_STRIP = re.compile(r"^(the )?(final )?answer( is)?[:\s]*", re.IGNORECASE)


def normalize_exact(text: str) -> str:
    """BBEH-style normalisation: case, surrounding quotes/brackets/periods, 'the answer is', spaces."""
    text = text.strip()
    text = _BBEH_STRIP.sub("", text)
    text = re.sub(r"\\text\{(.*?)\}", r"\1", text)
    text = text.strip().strip("$").strip().rstrip(".").strip()
    if len(text) >= 2 and text[0] + text[-1] in ("()", "[]", "''", '""', "``"):
        text = text[1:-1].strip()
    return re.sub(r"\s+", " ", text).lower()


class MathAnswer(Environment):
    """A benchmark problem judged by math-verify on the boxed answer (LaTeX parsing only)."""

    name = "Benchmark/math"

    def score(self, data, answer):
        from math_verify import LatexExtractionConfig, parse, verify

        latex_only = [LatexExtractionConfig()]  # no ExprExtractionConfig: it would run sympy's parse_expr
        gold = parse(f"${data['ground_truth']}$", extraction_config=latex_only, parsing_timeout=None)
        prediction = parse(f"${answer}$", extraction_config=latex_only, parsing_timeout=None)
        return float(bool(prediction) and verify(gold, prediction, timeout_seconds=None))


class ExactAnswer(Environment):
    """A benchmark problem judged by normalised exact match (BBEH)."""

    name = "Benchmark/exact"

    def score(self, data, answer):
        return float(normalize_exact(answer) == normalize_exact(data["ground_truth"]))


JUDGES = {"math": MathAnswer(), "exact": ExactAnswer()}


def load_benchmark(name: str, directory: Path = BENCHMARK_DIR) -> list[Problem]:
    """A benchmark's problems as Problems judged by its judge environment."""
    file, _, judge = BENCHMARKS[name]
    rows = json.loads((directory / file).read_text())
    return [Problem(JUDGES[judge].name, 0, i, row["user_prompt"], {"benchmark": name},
                    {"ground_truth": str(row["ground_truth"])}) for i, row in enumerate(rows)]


def eval_samples(suite: str, samples: int, benchmarks: str) -> int:
    """Responses per problem of an eval suite's largest call (the eval section's samples, else the suite's: 1 for
    the held-out set, the code suite's, the largest benchmark k): what the memory planner sizes."""
    if samples:
        return samples
    if suite == "heldout":
        return 1
    if suite == "code":
        from rlve_jax.evaluation.code_eval import SAMPLES

        return SAMPLES
    names = [n.strip() for n in benchmarks.split(",") if n.strip() in BENCHMARKS]
    return max((BENCHMARKS[n][1] for n in names), default=1)


# ---------------------------------------------------------------------------
# Running a policy


def eval_generator(policy: Policy, problems: Sequence[Problem], settings: SamplingSettings,
                   generator: GeneratorSettings) -> Generator:
    """The configured generator (its KV budget: settings') sized for these problems' longest prompt."""
    longest = longest_prompt(policy, [p.prompt for p in problems])
    return make_generator(generator.engine, policy, max_prompt_tokens=longest, max_new_tokens=settings.max_new_tokens,
                          cache_budget_tokens=settings.cache_budget_tokens, segment_steps=generator.segment_steps)


def evaluate_problems(policy: Policy, pool: EnvPool, problems: Sequence[Problem], settings: SamplingSettings,
                      generator: Generator, seed: int, ks: Sequence[int] = (1,), batch_prompts: int = 64,
                      progress: bool = True, params=None) -> tuple[dict, list[dict], float]:
    """Sample (with `params`, default the policy's own) and judge every problem; returns (summary, per-response
    records, seconds)."""
    start = time.perf_counter()
    stats = RolloutStats()
    records: list[dict] = []
    verdicts: list[list[Verdict]] = []
    markers = policy.prompt_format.markers
    model = policy.sampler_model(params)
    with tqdm(total=len(problems), desc="eval", disable=not progress, dynamic_ncols=True) as bar:
        for first in range(0, len(problems), batch_prompts):
            chunk = problems[first:first + batch_prompts]
            key = jax.random.fold_in(jax.random.key(seed), first)
            for group in sample_groups(policy, model, pool, chunk, settings, key, stats, generator):
                verdicts.append(group.verdicts)
                records += [{"env": group.problem.env, "difficulty": group.problem.difficulty,
                             "seed": group.problem.seed, "benchmark": group.problem.params.get("benchmark"),
                             "sample": j, "prompt": group.problem.prompt, "response": text,
                             "extracted_answer": extract_answer(text, markers), "reward": v.reward,
                             "accuracy": v.accuracy, "reason": v.reason}
                            for j, (text, v) in enumerate(zip(group.response_texts, group.verdicts))]
            bar.update(len(chunk))
    if stats.skipped_long_prompts:
        raise ValueError(f"{stats.skipped_long_prompts} prompts exceed rollout.max_prompt_tokens")
    return summarize(problems, verdicts, ks), records, time.perf_counter() - start


class HeldoutEval:
    """The in-training evaluation on a fixed held-out subset (the original logged its reward): a Trainer hook,
    called every eval.every steps with the learner's current parameters."""

    def __init__(self, policy: Policy, pool: EnvPool, settings: SamplingSettings, generator: GeneratorSettings, *,
                 problems: int, batch_prompts: int, seed: int):
        self.policy, self.pool, self.settings, self.seed = policy, pool, settings, seed
        self.batch_prompts = batch_prompts
        self.problems = heldout_subset(load_problems(), problems)
        self.generator = eval_generator(policy, self.problems, settings, generator)

    def __call__(self, info) -> dict[str, float]:
        """info: the trainer's StepInfo (its state's parameters are evaluated)."""
        start = time.perf_counter()
        summary, _, _ = evaluate_problems(self.policy, self.pool, self.problems, self.settings, self.generator,
                                          self.seed, batch_prompts=self.batch_prompts, progress=False,
                                          params=info.state.params)
        return {"eval/reward": summary["reward"], "eval/accuracy": summary["overall"],
                "time/eval": time.perf_counter() - start}


def heldout_subset(problems: Sequence[Problem], count: int, seed: int = 0) -> list[Problem]:
    """A fixed subset of the held-out set (in-training evaluation); count <= 0 keeps everything."""
    if count <= 0 or count >= len(problems):
        return list(problems)
    keep = sorted(random.Random(seed).sample(range(len(problems)), count))
    return [problems[i] for i in keep]


Check = Callable[[ml_collections.ConfigDict, ModelConfig, PromptFormat], object]  # the planner's plan.check


def run(config: ml_collections.ConfigDict, workdir: str | Path, check: Check | None = None) -> dict:
    """The standalone evaluation job (config.mode == "eval"): held-out set or benchmarks. `check(config, shape,
    prompt format)` runs on the model's shape before any weight is read (main passes the memory planner's).

    On several processes each one evaluates every problem (the same results); process 0 writes them.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    from rlve_jax.evaluation import code_eval

    suites = problem_suites(config)
    code = config.eval.suite == "code" or (config.eval.suite == "benchmarks" and code_eval.NAME in [
        n.strip() for n in config.eval.benchmarks.split(",")])
    code_suite = code_eval.prepare(config) if code else None  # data and sandbox checked before the model loads
    policy = eval_policy(config, workdir, check)
    s = settings(config)
    results = {}
    with EnvPool(**dataclasses.asdict(s.pool), extra_envs=list(JUDGES.values())) as pool:
        for name, (problems, samples) in suites.items():
            ks = sorted({1, samples} | ({8} if samples >= 8 else set()))
            sampling = dataclasses.replace(s.eval_sampling, samples=samples)
            generator = eval_generator(policy, problems, sampling, s.generator)
            summary, records, seconds = evaluate_problems(policy, pool, problems, sampling, generator, s.seed, ks,
                                                          config.eval.batch_prompts, s.log.progress)
            summary["seconds"] = seconds
            summary["problems_per_second"] = len(problems) / seconds
            results[name] = summary
            if not distributed.is_primary():
                continue
            responses_path, summary_path = workdir / f"{name}_responses.jsonl", workdir / f"{name}_summary.json"
            with open(responses_path, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
            summary_path.write_text(json.dumps(summary, indent=2))
            print(format_summary(f"{name} (Avg@{samples})", summary))
            print(f"{len(problems)} problems in {seconds:.1f} s ({summary['problems_per_second']:.2f} problems/s)")
            print(f"wrote {summary_path.absolute()} and {responses_path.absolute()}")
    if code_suite is not None:
        problems, sandbox, samples = code_suite
        suite = code_eval.SuiteSettings(dataclasses.replace(s.eval_sampling, samples=samples), s.generator, s.seed,
                                        config.eval.batch_prompts, config.eval.code_timeout_s,
                                        config.eval.code_workers or os.cpu_count() or 1,
                                        code_eval.run_key(config, samples))
        results[code_eval.NAME] = code_eval.run_suite(policy, workdir, problems, sandbox, suite,
                                                      write=distributed.is_primary())
    return results


def problem_suites(config: ml_collections.ConfigDict) -> dict[str, tuple[list[Problem], int]]:
    """The standalone evaluation's suites of problems (the code suite aside: rlve_jax/evaluation/code_eval.py),
    each with its responses per problem: what `run` samples and the memory planner sizes."""
    from rlve_jax.evaluation import code_eval

    if config.eval.suite == "heldout":
        return {"heldout": (heldout_subset(load_problems(), config.eval.problems), config.eval.samples or 1)}
    if config.eval.suite == "benchmarks":
        names = [n.strip() for n in config.eval.benchmarks.split(",") if n.strip()]
        unknown = [n for n in names if n not in BENCHMARKS and n != code_eval.NAME]
        if unknown:
            raise ValueError(f"unknown benchmarks {unknown}; known: {sorted(BENCHMARKS) + [code_eval.NAME]}")
        first = config.eval.problems if config.eval.problems > 0 else None  # a smoke-test cap
        return {n: (load_benchmark(n)[:first], config.eval.samples or BENCHMARKS[n][1])
                for n in names if n != code_eval.NAME}
    if config.eval.suite == "code":
        return {}
    raise ValueError(f"eval.suite must be 'heldout', 'benchmarks' or 'code', got {config.eval.suite!r}")


def planned_prompts(config: ml_collections.ConfigDict) -> list[str]:
    """The prompts an evaluation of this config samples: the in-training evaluation's held-out subset (mode
    "train"), or the standalone suites' problems (the code suite's are code_eval's own)."""
    if config.mode == "train":
        return [p.prompt for p in heldout_subset(load_problems(), config.eval.problems)]
    return [p.prompt for problems, _ in problem_suites(config).values() for p in problems]


def eval_policy(config: ml_collections.ConfigDict, workdir: Path,
                check: Check | None = None) -> Policy:
    """The policy to evaluate: config.model as given, or with eval.checkpoint set, the latest checkpoint
    of that training run, built with the run's own model and tokenizer settings (read from the checkpoint).
    `check(config, shape, prompt format)` runs before any weight is read."""
    env_names = registry.resolve(config.env.collection)
    if not config.eval.checkpoint:
        return _load_policy(config, env_names, workdir, check)
    training_workdir = Path(config.eval.checkpoint)
    checkpointer = Checkpointer(training_workdir)
    try:
        step = checkpointer.latest_step()
        if step is None:
            raise FileNotFoundError(f"no checkpoint under {training_workdir}/checkpoints (eval.checkpoint)")
        config = run_config(config, checkpointer.restore_meta(step)["config"], training_workdir)
        policy = _load_policy(config, env_names, workdir, check)
        policy = dataclasses.replace(policy, params=checkpointer.restore_params(step, policy.params))
    finally:
        checkpointer.close()
    log.info("evaluating step %d of %s", step, training_workdir)
    return policy


def run_config(config: ml_collections.ConfigDict, trained: dict, training_workdir: Path) -> ml_collections.ConfigDict:
    """`config` with a training run's model and tokenizer sections (`trained`: the config its checkpoint recorded)
    over this version's defaults: keys added since the run was saved (e.g. model.decode_attention, model.lora) keep
    their defaults; a tiny tokenizer is the one the run built for itself."""
    config = ml_collections.ConfigDict({**config.to_dict(),
                                        "model": {**config.model.to_dict(), **trained["model"]},
                                        "tokenizer": {**config.tokenizer.to_dict(), **trained["tokenizer"]}})
    if config.tokenizer.path == "tiny":
        config.tokenizer.path = str(training_workdir / "tokenizer")
    return config


def _load_policy(config: ml_collections.ConfigDict, env_names: Sequence[str], workdir: Path,
                 check: Check | None) -> Policy:
    s = settings(config)
    return load_policy(s.model, s.tokenizer, s.mesh, seed=s.seed, env_names=env_names, workdir=workdir,
                       check=None if check is None else functools.partial(check, config))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rlve_jax.evaluation.evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build-heldout", help="regenerate the frozen held-out set")
    build.add_argument("--out", default=str(HELDOUT_PATH))
    args = parser.parse_args(argv)
    problems = build_heldout()
    write_problems(problems, args.out)
    print(f"wrote {len(problems)} problems to {args.out}")


if __name__ == "__main__":
    main()
