"""Measure each environment's top level: the highest difficulty it generates within the budgets.

    nice -n 19 python experiments/find_top_levels.py --check --jobs 2        # all 400: do the recorded tops hold?
    nice -n 19 python experiments/find_top_levels.py --envs Sorting,Cinema --redo
    python experiments/find_top_levels.py --envs NewEnv --from-zero        # a new environment: levels 0, 1, ...
    nice -n 19 python experiments/find_top_levels.py --check --seeds 50 --envs Sudoku   # the recorded top, more seeds

The rule. A level is supported when it and the level below pass over seeds 0..--seeds-1 (default 10; more
where a scan past seed 9 found a draw that breaks the rule, e.g. --seeds 50 for a grid whose drawn size can pass
the answer budget);
each problem passes when, in a fresh worker with Python's default limits:
  generate   generation does not raise (a level where some seed cannot be generated is not supported);
  reference  the environment's reference answer exists and verifies as correct (accuracy 1);
  time       generate + verify(reference) take at most --time-s CPU seconds (default 2 s: a fifth of
             env.timeout_s's default 10 s wall clock, so a machine loaded 5x still fits). Every seed must fit
             (the nearest-rank 95th percentile of <= 20 seeds is their maximum). CPU time, stopped by a
             profiling timer, so a niced probe on a busy machine measures about what an idle one would; as
             contention only adds CPU time, an item over this budget alone runs again and the faster run counts;
  memory     the worker's peak resident set during the item <= --memory-mb (default 1024);
  prompt     <= --prompt-chars characters (default 65536);
  answer     the reference answer <= --answer-chars characters (default ANSWER_BUDGET_CHARS = 4096: a sixth
             of the default 24,576-token response even at one token per character).
The level below is judged too because a level's draws differ per level for the same seed: a lower level
can draw a larger instance (DecreasingDigitCounting at level 12, seed 0, drew a 4,926-digit answer that
no seed at level 16 drew).

What a user's process meets. Every item runs in its own process forked from a forkserver: a fresh
interpreter that has imported the gym and nothing else, never generated anything (no warm cache), and
that resets Python's int<->str digit limit (4,300) and recursion limit (1,000) to their defaults before
the item, whatever flags or environment variables this process was started with.

Search. An environment already in the table is probed from its recorded top level, stepping down while
that level or the one below fails; when the recorded level passes cheaply (every seed under half the
time budget) and is below --max-level, up to --step-up levels above it are tried too. An environment not
in the table (or with --from-zero) is probed from level 0 upwards, and the first failing level ends the
probe. A level whose parameter settings equal an already judged neighbour's is judged the same without
generating again (the same seeds give the same problems). Results go into rlve_jax/gym/top_levels.json
after each environment; one already measured with these budgets and seeds is skipped, so a killed run
resumes. A row's `note` (why a level is lower than the probe would find, or what changed) is kept.

--check judges only the recorded top and the level below for every environment, prints the failures and
the CPU and wall time, and exits 1 if any fails; it writes nothing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import resource
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlve_jax.gym import env as env_module  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.env import ANSWER_BUDGET_CHARS, Environment  # noqa: E402

PYTHON_RECURSION_LIMIT = 1000  # CPython's default (sys.getrecursionlimit() in a fresh interpreter)
WALL_FACTOR = 300  # a niced probe on a loaded machine gets little CPU: the wall clock is only a backstop
CPU_GRACE_S = 1.0  # CPU beyond the budget before the probe stops a worker whose timer signal is deferred
PRIORITY = ("ColoringCounting", "Minimum_CrossingEdges_GraphPartition", "BinaryLinearEquation_SolutionCounting",
            "MinKDivisorNumber")  # known to be slow or seed-variable: measured first
WORKER_CPU_S: list[float] = []  # every worker's user + system CPU seconds, for the closing line
BUDGET_KEYS = (("time", "seconds", "time_s"), ("memory", "rss_mb", "memory_mb"),
               ("prompt", "prompt_chars", "prompt_chars"), ("answer", "answer_chars", "answer_chars"))


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


def python_defaults() -> None:
    """Python's own int<->str digit limit and recursion limit, as a fresh interpreter without flags has them."""
    sys.set_int_max_str_digits(sys.int_info.default_max_str_digits)
    sys.setrecursionlimit(PYTHON_RECURSION_LIMIT)


def probe_item(environment: Environment, level: int, seed: int, cpu_limit_s: float) -> dict:
    """CPU seconds, peak RSS, prompt and answer size of one generate + verify(reference) in this process;
    an item still running after `cpu_limit_s` CPU seconds is stopped (its seconds exceed the limit)."""
    with open("/proc/self/clear_refs", "w") as f:  # reset the RSS high-water mark to the current RSS
        f.write("5")
    signal.signal(signal.SIGPROF, _stop_item)
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, cpu_limit_s)
    try:
        problem = environment.generate_any_level(level, seed)
        reference = environment.reference(problem)
        verdict = None if reference is None else environment.verify(problem, f"<answer>{reference}</answer>",
                                                                    env_module.ANSWER_TAGS)
    except CpuBudgetSpent:  # the timer samples CPU time in ticks and can fire early: stopped is over the limit
        return {"seconds": max(time.process_time() - start, cpu_limit_s), "rss_mb": _peak_rss_mb(), "prompt_chars": 0,
                "answer_chars": 0, "reference_wrong": 0}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return {"seconds": time.process_time() - start, "rss_mb": _peak_rss_mb(), "prompt_chars": len(problem.prompt),
            "answer_chars": len(reference or ""), "reference_wrong": int(verdict is None or not verdict.accuracy)}


def _child(connection, address_space_mb: int, args: tuple) -> None:
    """The worker: Python's default limits, the address space capped (a runaway fails fast with MemoryError),
    probe, report."""
    python_defaults()
    limit = address_space_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        outcome = ("ok", probe_item(*args))
    except MemoryError:
        outcome = ("memory (MemoryError)", None)
    except BaseException as error:  # noqa: BLE001 -- anything generation raises ends the level
        outcome = (f"error: {type(error).__name__}: {str(error)[:120]}", None)
    times = os.times()
    connection.send((*outcome, times.user + times.system))


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def worker_context() -> multiprocessing.context.BaseContext:
    """A forkserver that has imported every environment module: each item's worker is a fork of a fresh
    interpreter that never generated anything (and never imported JAX, whatever the caller has)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["rlve_jax.gym.registry", *sorted({type(registry.make(n)).__module__
                                                                       for n in registry.names()})])
    return context


def run_cold(environment: Environment, level: int, seed: int, args: argparse.Namespace) -> tuple[str, dict | None]:
    """('ok', measurement) or (what stopped it, None), from a fresh worker."""
    receive, send = args.context.Pipe(duplex=False)
    process = args.context.Process(target=_child, args=(send, args.memory_mb + 1024,
                                                        (environment, level, seed, args.time_s * 1.05)))
    process.start()
    send.close()
    wall_s = args.time_s * WALL_FACTOR
    deadline = time.monotonic() + wall_s
    cpu_s = 0.0
    while not receive.poll(1.0):  # data or the end of the pipe (a dead worker) make it ready
        # A long call into C defers the profiling timer's signal: read the worker's CPU time from outside.
        cpu_s = max(cpu_s, _cpu_seconds(process.pid))
        over_cpu = cpu_s > args.time_s * 1.05 + CPU_GRACE_S
        if over_cpu or time.monotonic() > deadline:
            process.kill()
            process.join()
            receive.close()
            WORKER_CPU_S.append(cpu_s)
            return ("time (CPU, stopped from outside)" if over_cpu else f"time (wall > {wall_s:g} s)"), None
    try:
        outcome, result, cpu_s = receive.recv()
    except EOFError:  # the worker died without a word (killed, or a crash in C)
        outcome, result = None, None
    process.join()
    receive.close()
    WORKER_CPU_S.append(cpu_s)
    return outcome or f"crash (exit {process.exitcode})", result


def broken_budgets(outcome: str, result: dict | None, args: argparse.Namespace) -> list[str]:
    """What an item breaks: its outcome when it did not finish, else the budgets it exceeds."""
    if outcome != "ok":
        return [outcome]
    broken = [budget for budget, key, limit in BUDGET_KEYS if result[key] > getattr(args, limit)]
    return broken + ["reference"] * result["reference_wrong"]


def measure(environment: Environment, level: int, seed: int, args: argparse.Namespace) -> tuple[str, dict | None]:
    """run_cold, and once more where time alone breaks the rule: contention on a shared machine only adds CPU
    time (caches, memory bandwidth), so the faster of two runs counts."""
    first = run_cold(environment, level, seed, args)
    if not all(b.startswith("time") for b in broken_budgets(*first, args)):
        return first
    second = run_cold(environment, level, seed, args)
    return min(first, second, key=lambda run: run[1]["seconds"] if run[0] == "ok" else float("inf"))


def judge_level(environment: Environment, level: int, args: argparse.Namespace) -> dict:
    """One level over the seeds: {'passes', 'stopped_by', 'at', 'measured', 'worst'}; stops at the first
    seed that breaks the rule."""
    worst = {"seconds": 0.0, "rss_mb": 0.0, "prompt_chars": 0, "answer_chars": 0, "reference_wrong": 0}
    for seed in args.seed_list:
        try:
            outcome, result = measure(environment, level, seed, args)
        except OSError as error:  # e.g. fork refused under memory pressure: a probe failure, not the level's
            raise SystemExit(f"error: cannot start a probe worker: {error}")
        broken = broken_budgets(outcome, result, args)
        if broken:
            measured = {"measured": {k: round(v, 3) for k, v in result.items()}} if result else {}
            return {"passes": False, "stopped_by": ",".join(broken), "at": [level, seed], **measured, "worst": worst}
        worst = {k: round(max(worst[k], result[k]), 3) for k in worst}
    return {"passes": True, "worst": worst}


class Levels:
    """An environment's levels, each judged at most once; equal parameter settings share a verdict."""

    def __init__(self, name: str, args: argparse.Namespace):
        self.name, self.args = name, args
        self.environment = registry.make(name)
        self.verdicts: dict[int, dict] = {}
        bound = self.environment.top_level  # a class's own bound (e.g. its largest answer), never probed past
        self.cap = args.max_level if bound is None else min(bound, args.max_level)
        self.capped_by = "cap" if self.cap == args.max_level else "the class's top_level"

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
                self.verdicts[level] = same[0] if same else judge_level(self.environment, level, self.args)
        return self.verdicts[level]

    def supported(self, level: int) -> bool:
        """The level and the one below it pass."""
        return self.judge(level)["passes"] and (level == 0 or self.judge(level - 1)["passes"])

    def first_failure(self, level: int) -> dict:
        """Why `level` is not supported: its own failure, else the level below's."""
        verdict = self.judge(level)
        return _failure(verdict if not verdict["passes"] else self.judge(level - 1))


def probe_from_zero(levels: Levels, args: argparse.Namespace) -> dict:
    """Levels 0, 1, ... until one fails: the level below it is the top."""
    worst = {}
    for level in range(levels.cap + 1):
        verdict = levels.judge(level)
        if not verdict["passes"]:
            return {"max_difficulty": level - 1, **_failure(verdict), "worst": worst}
        worst = _merge(worst, verdict["worst"])
    return {"max_difficulty": levels.cap, "stopped_by": levels.capped_by, "worst": worst}


def probe_from(levels: Levels, start: int, args: argparse.Namespace) -> dict:
    """Down from `start` while a level is not supported; from a cheaply passing `start`, up at most
    args.step_up levels."""
    level = min(start, levels.cap)
    while level >= 0 and not levels.supported(level):
        level -= 1
    if level < 0:
        return {"max_difficulty": -1, **_failure(levels.judge(0)), "worst": {}}
    worst = _merge(levels.judge(level)["worst"], levels.judge(level - 1)["worst"] if level else {})
    if level < min(start, levels.cap):  # stepped down: the level above is what stopped it
        return {"max_difficulty": level, **levels.first_failure(level + 1), "worst": worst}
    top = level
    while (top < min(start + args.step_up, levels.cap)
           and levels.judge(top)["worst"]["seconds"] <= args.time_s / 2 and levels.judge(top + 1)["passes"]):
        top += 1
        worst = _merge(worst, levels.judge(top)["worst"])
    if top == levels.cap:
        return {"max_difficulty": top, "stopped_by": levels.capped_by, "worst": worst}
    above = levels.verdicts.get(top + 1)
    stopped = _failure(above) if above else {"stopped_by": "not probed above (step-up limit or not cheap)"}
    return {"max_difficulty": top, **stopped, "worst": worst}


def check(levels: Levels, top: int) -> dict:
    """The recorded top and the level below, judged: {'passes', and the first failure or 'worst'}."""
    if levels.supported(top):
        return {"passes": True, "worst": _merge(levels.judge(top)["worst"],
                                                levels.judge(top - 1)["worst"] if top else {})}
    return {"passes": False, **levels.first_failure(top)}


def _failure(verdict: dict) -> dict:
    return {k: verdict[k] for k in ("stopped_by", "at", "measured") if k in verdict}


def _merge(a: dict, b: dict) -> dict:
    return {k: round(max(a.get(k, 0), b.get(k, 0)), 3) for k in {**a, **b}}


def _order(names: list[str], recorded: dict, cheapest_first: bool) -> list[str]:
    cost = {n: recorded.get(n, {}).get("worst", {}).get("seconds", 0.0) for n in names}
    return sorted(names, key=lambda n: (cost[n], n) if cheapest_first else (n not in PRIORITY, -cost[n], n))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, with the seed list and the workers' context (tests take the rule's defaults from here)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="C400", help="collection or comma-separated identifiers")
    parser.add_argument("--max-level", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0..N-1 per level (at least 10 for the table)")
    parser.add_argument("--step-up", type=int, default=2, help="levels tried above a cheaply passing recorded top")
    parser.add_argument("--time-s", type=float, default=2.0)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--prompt-chars", type=int, default=65536)
    parser.add_argument("--answer-chars", type=int, default=ANSWER_BUDGET_CHARS)
    parser.add_argument("--out", type=Path, default=Path(env_module.TOP_LEVELS_PATH))
    parser.add_argument("--check", action="store_true",
                        help="judge the top level and the level below of every environment; write nothing")
    parser.add_argument("--jobs", type=int, default=1, help="environments probed at once")
    parser.add_argument("--redo", action="store_true",
                        help="probe environments already measured with these budgets and seeds again")
    parser.add_argument("--from-zero", action="store_true", help="probe from level 0 even where a level is recorded")
    parser.add_argument("--cheapest-first", action="store_true",
                        help="the environments by the recorded CPU time, lowest first (default: the known slow or "
                             "seed-variable ones, then the highest recorded CPU time first)")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.time_s <= 0 or args.jobs < 1:
        parser.error("need --seeds >= 1, --time-s > 0 and --jobs >= 1")
    args.seed_list = list(range(args.seeds))
    args.context = worker_context()
    return args


def main() -> None:
    args = parse_args()
    budgets = {"time_cpu_s_p95": args.time_s, "memory_mb": args.memory_mb, "prompt_chars": args.prompt_chars,
               "answer_chars": args.answer_chars, "max_level": args.max_level}
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    data.setdefault("levels", {})

    def measured_now(name: str) -> bool:
        """Measured with these budgets over these seeds or more (a row probed with --seeds 50 stays)."""
        row = data["levels"].get(name, {})
        seeds = row.get("seed_list", [])
        return row.get("budgets") == budgets and seeds[:len(args.seed_list)] == args.seed_list

    names = [n for n in registry.resolve(args.envs) if registry.is_implemented(n)
             and (args.check or args.redo or not measured_now(n))]
    names = _order(names, data["levels"], args.cheapest_first)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no thread-stack reservations in the workers
    wall_start = time.perf_counter()
    what = "checking the recorded tops of" if args.check else "probing"
    print(f"{what} {len(names)} environments with seeds {args.seed_list} and budgets {budgets}", flush=True)

    def seeds_for(name: str) -> list[int]:
        """args.seed_list, or the row's own where it was measured over more (--seeds 50 rows keep their seeds)."""
        recorded = data["levels"].get(name, {}).get("seed_list", [])
        return recorded if recorded[:len(args.seed_list)] == args.seed_list else args.seed_list

    def probe(name: str) -> tuple[str, dict, float]:
        start = time.perf_counter()
        recorded = data["levels"].get(name, {})
        own = argparse.Namespace(**{**vars(args), "seed_list": seeds_for(name)})
        levels = Levels(name, own)
        if args.check:
            row = check(levels, levels.environment.max_difficulty)
        elif "max_difficulty" not in recorded or args.from_zero:
            row = probe_from_zero(levels, own)
        else:
            row = probe_from(levels, recorded["max_difficulty"], own)
        return name, row, time.perf_counter() - start

    failures = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:  # the work is in the workers, not here
        for i, (name, row, wall_s) in enumerate(pool.map(probe, names)):
            recorded = data["levels"].get(name, {})
            if args.check:
                if not row["passes"]:
                    failures[name] = row
                print(f"[{i + 1}/{len(names)}] {name:45s} top {registry.make(name).max_difficulty:3d}  "
                      f"{'ok' if row['passes'] else row['stopped_by'][:40] + ' at ' + str(row['at']):40s} "
                      f"{wall_s:6.1f} s", flush=True)
                continue
            # the level before this measurement (a resumed or repeated one keeps the level before the first)
            previous = recorded.get("previous_max_difficulty") if measured_now(name) else recorded.get("max_difficulty")
            note = {"note": recorded["note"]} if "note" in recorded else {}
            seeds = seeds_for(name)
            data["levels"][name] = {**row, **note, "seed_list": seeds, "seeds": len(seeds),
                                    "budgets": budgets, "previous_max_difficulty": previous,
                                    "probe_wall_s": round(wall_s, 1)}
            data["levels"] = dict(sorted(data["levels"].items()))
            data["budgets"] = budgets
            tmp = args.out.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1) + "\n")
            tmp.replace(args.out)  # atomic: an interrupted probe never leaves a torn file
            print(f"[{i + 1}/{len(names)}] {name:45s} top {previous} -> {row['max_difficulty']:3d}  "
                  f"{row['stopped_by'][:40]:40s} {wall_s:6.1f} s", flush=True)
    own = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{len(names)} environments, {len(WORKER_CPU_S)} problems: {sum(WORKER_CPU_S):.0f} CPU s in the workers, "
          f"{own.ru_utime + own.ru_stime:.0f} CPU s here, {time.perf_counter() - wall_start:.0f} s wall", flush=True)
    if args.check:
        for name, row in failures.items():
            print(f"FAILED {name}: {row['stopped_by']} at level/seed {row['at']} {row.get('measured', '')}")
        raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
