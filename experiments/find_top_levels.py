"""Measure each environment's top level: the highest difficulty it generates within the budgets.

    nice -n 10 python experiments/find_top_levels.py                      # all 400, from their recorded levels
    python experiments/find_top_levels.py --envs Sorting,Cinema --redo --seeds 5
    python experiments/find_top_levels.py --envs NewEnv --from-zero       # a new environment: levels 0, 1, ...

The rule (per problem, in a cold worker like the pool's):
  time    the 95th percentile of generate + verify(reference) CPU time over the probed seeds
          <= --time-s (default 2 s: a fifth of env.timeout_s's default 10 s wall clock, so a machine
          loaded 5x still fits). With --seeds 5 (the default) the 95th percentile is taken as the
          maximum, so every seed must fit; CPU time, stopped by a profiling timer, so a niced probe on
          a busy machine measures what an idle one would;
  memory  peak resident set of the worker during the item <= --memory-mb (default 1024);
  prompt  <= --prompt-chars characters (default 65536);
  answer  the reference answer, where the environment has one, must verify as correct and be at most
          --answer-chars characters (default ANSWER_BUDGET_CHARS = 4096: a sixth of the default
          24,576-token response even at one token per character), so no level asks for an answer no
          model can write out;
and generation must not raise (a level where some seed cannot be generated is not supported).

Search. An environment already in the table is probed from its recorded top level: that level with
seeds 0..--seeds-1, stepping down while a seed breaks the rule; when the recorded level passes
cheaply (every seed under half the time budget) and is below --max-level, up to --step-up levels
above it are tried too. An environment not in the table (or with --from-zero) is probed from level 0
upwards, and the first failing level ends the probe. A level whose parameter settings equal an
already judged neighbour's is judged the same without generating again (the same seeds give the
same problems).

Every item runs in a fresh worker forked from this process (which has imported the gym but never
generated anything), so no cache warmed by another item makes a level look cheaper than it is.
Results go into rlve_jax/gym/top_levels.json (read by Environment.max_difficulty) after each
environment; one already measured with these budgets and seeds is skipped, so a killed run resumes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlve_jax.gym import env as env_module  # noqa: E402
from rlve_jax.gym.env import ANSWER_BUDGET_CHARS  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402

WALL_FACTOR = 300  # a niced probe on a loaded machine gets little CPU: the wall clock is only a backstop
CPU_GRACE_S = 1.0  # CPU beyond the budget before the probe stops a worker whose timer signal is deferred
PRIORITY = ("ColoringCounting", "Minimum_CrossingEdges_GraphPartition", "BinaryLinearEquation_SolutionCounting",
            "MinKDivisorNumber")  # known to be slow or seed-variable: measured first


class CpuBudgetSpent(BaseException):
    """The item used more CPU time than the budget (raised by the profiling timer)."""


def _stop_item(signum, frame):
    raise CpuBudgetSpent()


def _peak_rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def probe_item(name: str, level: int, seed: int, cpu_limit_s: float) -> dict:
    """CPU seconds, peak RSS, prompt and answer size of one generate + verify(reference) in this process;
    an item still running after `cpu_limit_s` CPU seconds is stopped (its seconds exceed the limit)."""
    with open("/proc/self/clear_refs", "w") as f:  # reset the RSS high-water mark to the current RSS
        f.write("5")
    environment = registry.make(name)
    signal.signal(signal.SIGPROF, _stop_item)
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, cpu_limit_s)
    try:
        problem = environment.generate_any_level(level, seed)
        reference = environment.reference(problem)
        output = f"<answer>{reference}</answer>"
        correct = reference is None or environment.verify(problem, output, env_module.ANSWER_TAGS).accuracy
    except CpuBudgetSpent:  # the timer samples CPU time in ticks and can fire early: stopped is over the limit
        return {"seconds": max(time.process_time() - start, cpu_limit_s), "rss_mb": _peak_rss_mb(), "prompt_chars": 0,
                "answer_chars": 0, "reference_wrong": 0}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return {"seconds": time.process_time() - start, "rss_mb": _peak_rss_mb(), "prompt_chars": len(problem.prompt),
            "answer_chars": len(reference or ""), "reference_wrong": int(not correct)}


def _child(connection, address_space_mb: int, args: tuple) -> None:
    """The forked worker: cap the address space (a runaway fails fast with MemoryError), probe, report."""
    import resource

    limit = address_space_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        connection.send(("ok", probe_item(*args)))
    except MemoryError:
        connection.send(("memory (MemoryError)", None))
    except BaseException as error:  # noqa: BLE001 -- anything generation raises ends the level
        connection.send((f"error: {type(error).__name__}: {str(error)[:120]}", None))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cold(name: str, level: int, seed: int, args: argparse.Namespace) -> tuple[str, dict | None]:
    """('ok', measurement) or (what stopped it, None), from a fresh forked worker."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(send, args.memory_mb + 1024,
                                                   (name, level, seed, args.time_s * 1.05)))
    process.start()
    send.close()
    wall_s = args.time_s * WALL_FACTOR
    deadline = time.monotonic() + wall_s
    while not receive.poll(1.0):  # data or the end of the pipe (a dead worker) make it ready
        # A long call into C defers the profiling timer's signal: read the worker's CPU time from outside.
        over_cpu = _cpu_seconds(process.pid) > args.time_s * 1.05 + CPU_GRACE_S
        if over_cpu or time.monotonic() > deadline:
            process.kill()
            process.join()
            receive.close()
            return ("time (CPU, stopped from outside)" if over_cpu else f"time (wall > {wall_s:g} s)"), None
    try:
        outcome = receive.recv()
    except EOFError:  # the worker died without a word (killed, or a crash in C)
        outcome = None
    process.join()
    receive.close()
    return outcome or (f"crash (exit {process.exitcode})", None)


def judge_level(name: str, level: int, args: argparse.Namespace) -> dict:
    """One level over the seeds: {'passes', 'stopped_by', 'at', 'measured', 'worst'}; stops at the first
    seed that breaks a budget (the nearest-rank 95th percentile of <= 20 seeds is their maximum, so one such
    seed fails the level)."""
    worst = {"seconds": 0.0, "rss_mb": 0.0, "prompt_chars": 0, "answer_chars": 0, "reference_wrong": 0}
    for seed in args.seed_list:
        try:
            outcome, result = run_cold(name, level, seed, args)
        except OSError as error:  # e.g. fork refused under memory pressure: a probe failure, not the level's
            raise SystemExit(f"error: cannot start a probe worker: {error}")
        if outcome != "ok":
            return {"passes": False, "stopped_by": outcome, "at": [level, seed], "worst": worst}
        broken = [budget for budget, key, limit in (("time", "seconds", args.time_s),
                                                    ("memory", "rss_mb", args.memory_mb),
                                                    ("prompt", "prompt_chars", args.prompt_chars),
                                                    ("answer", "answer_chars", args.answer_chars),
                                                    ("reference", "reference_wrong", 0))
                  if result[key] > limit]
        if broken:
            return {"passes": False, "stopped_by": ",".join(broken), "at": [level, seed],
                    "measured": {k: round(v, 3) for k, v in result.items()}, "worst": worst}
        worst = {k: round(max(worst[k], result[k]), 3) for k in worst}
    return {"passes": True, "worst": worst}


class Levels:
    """An environment's levels, each judged at most once; equal parameter settings share a verdict."""

    def __init__(self, name: str, args: argparse.Namespace):
        self.name, self.args = name, args
        self.environment = registry.make(name)
        self.verdicts: dict[int, dict] = {}

    def settings(self, level: int):
        try:
            return self.environment.levels(level)
        except Exception as error:  # noqa: BLE001
            return f"levels: {type(error).__name__}"

    def judge(self, level: int) -> dict:
        if level not in self.verdicts:
            settings = self.settings(level)
            if isinstance(settings, str):
                self.verdicts[level] = {"passes": False, "stopped_by": settings, "at": [level, None]}
            else:
                same = [v for d, v in self.verdicts.items() if abs(d - level) == 1 and self.settings(d) == settings]
                self.verdicts[level] = same[0] if same else judge_level(self.name, level, self.args)
        return self.verdicts[level]


def probe_from_zero(levels: Levels, args: argparse.Namespace) -> dict:
    """Levels 0, 1, ... until one fails: the level below it is the top."""
    worst = {}
    for level in range(args.max_level + 1):
        verdict = levels.judge(level)
        if not verdict["passes"]:
            return {"max_difficulty": level - 1, **_failure(verdict), "worst": worst}
        worst = _merge(worst, verdict["worst"])
    return {"max_difficulty": args.max_level, "stopped_by": "cap", "worst": worst}


def probe_from(levels: Levels, start: int, args: argparse.Namespace) -> dict:
    """Down from `start` while a level fails; from a cheaply passing `start`, up at most args.step_up levels."""
    level = min(start, args.max_level)
    while level >= 0 and not levels.judge(level)["passes"]:
        level -= 1
    if level < 0:
        return {"max_difficulty": -1, **_failure(levels.judge(0)), "worst": {}}
    if level < start:  # stepped down: the level above is what stopped it
        return {"max_difficulty": level, **_failure(levels.judge(level + 1)), "worst": levels.judge(level)["worst"]}
    top = level
    while (top < min(start + args.step_up, args.max_level)
           and levels.judge(top)["worst"]["seconds"] <= args.time_s / 2 and levels.judge(top + 1)["passes"]):
        top += 1
    if top == args.max_level:
        return {"max_difficulty": top, "stopped_by": "cap", "worst": levels.judge(top)["worst"]}
    above = levels.verdicts.get(top + 1)
    stopped = _failure(above) if above else {"stopped_by": "not probed above (step-up limit or not cheap)"}
    return {"max_difficulty": top, **stopped, "worst": levels.judge(top)["worst"]}


def _failure(verdict: dict) -> dict:
    return {k: verdict[k] for k in ("stopped_by", "at", "measured") if k in verdict}


def _merge(a: dict, b: dict) -> dict:
    return {k: round(max(a.get(k, 0), b[k]), 3) for k in b}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="C400", help="collection or comma-separated identifiers")
    parser.add_argument("--max-level", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 per level (at least 5 for the table)")
    parser.add_argument("--step-up", type=int, default=2, help="levels tried above a cheaply passing recorded top")
    parser.add_argument("--time-s", type=float, default=2.0)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--prompt-chars", type=int, default=65536)
    parser.add_argument("--answer-chars", type=int, default=ANSWER_BUDGET_CHARS)
    parser.add_argument("--out", type=Path, default=Path(env_module.TOP_LEVELS_PATH))
    parser.add_argument("--redo", action="store_true",
                        help="probe environments already measured with these budgets and seeds again")
    parser.add_argument("--from-zero", action="store_true", help="probe from level 0 even where a level is recorded")
    parser.add_argument("--cheapest-first", action="store_true",
                        help="the environments by the recorded CPU time, lowest first (default: the known slow or "
                             "seed-variable ones, then the highest recorded CPU time first)")
    args = parser.parse_args()
    if args.seeds < 1 or args.time_s <= 0:
        parser.error("need --seeds >= 1 and --time-s > 0")
    args.seed_list = list(range(args.seeds))

    budgets = {"time_cpu_s_p95": args.time_s, "memory_mb": args.memory_mb, "prompt_chars": args.prompt_chars,
               "answer_chars": args.answer_chars, "max_level": args.max_level}
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    data["budgets"] = budgets
    data.setdefault("levels", {})

    def measured_now(name: str) -> bool:
        row = data["levels"].get(name, {})
        return row.get("budgets") == budgets and row.get("seed_list") == args.seed_list

    names = [n for n in registry.resolve(args.envs) if registry.is_implemented(n)
             and (args.redo or not measured_now(n))]
    recorded = {n: data["levels"].get(n, {}) for n in names}
    cost = {n: recorded[n].get("worst", {}).get("seconds", 0.0) for n in names}
    names.sort(key=lambda n: (cost[n], n) if args.cheapest_first else (n not in PRIORITY, -cost[n], n))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no thread-stack reservations in the workers
    registry.names()  # import every environment once; each forked worker inherits them, cold
    print(f"probing {len(names)} environments with seeds {args.seed_list} and budgets {budgets}", flush=True)
    for i, name in enumerate(names):
        start = time.perf_counter()
        previous = recorded[name].get("previous_max_difficulty", recorded[name].get("max_difficulty"))
        start_level = recorded[name].get("max_difficulty")
        levels = Levels(name, args)
        if start_level is None or args.from_zero:
            row = probe_from_zero(levels, args)
        else:
            row = probe_from(levels, start_level, args)
        data["levels"][name] = {**row, "seed_list": args.seed_list, "seeds": len(args.seed_list), "budgets": budgets,
                                "previous_max_difficulty": previous,
                                "probe_wall_s": round(time.perf_counter() - start, 1)}
        data["levels"] = dict(sorted(data["levels"].items()))
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        tmp.replace(args.out)  # atomic: an interrupted probe never leaves a torn file
        print(f"[{i + 1}/{len(names)}] {name:45s} top {previous} -> {row['max_difficulty']:3d}  "
              f"{row['stopped_by'][:40]:40s} {data['levels'][name]['probe_wall_s']:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
