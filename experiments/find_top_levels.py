"""Measure each environment's top level: the highest difficulty it generates within the budgets.

    nice -n 19 python experiments/find_top_levels.py                       # all 400, writes the data file
    python experiments/find_top_levels.py --envs Sorting,Cinema --max-level 40

Budgets (per problem, every probed seed, in a worker process like the pool's):
  time    generate + verify(reference) <= --time-s CPU seconds (default 2: a fifth of the pool's
          10 s wall-clock timeout, so a machine loaded 5x still fits); CPU time, stopped by a
          profiling timer, so a niced probe on a busy machine measures what an idle one would;
  memory  peak resident set of the worker during the item <= --memory-mb (default 1024);
  prompt  <= --prompt-chars characters (default 65536);
and the reference answer, where the environment has one, must verify as correct (so a level whose
answers outgrow env.MAX_ANSWER_CHARS, or whose verifier breaks, is not supported).
Levels 0, 1, ... are probed in order with --seeds seeds each (0, 1, ...); the first level where a
seed breaks a budget (or raises, or the worker dies) ends the probe, and the level below it is the
top level. Probing stops at --max-level (default 40) otherwise. A level whose parameter settings
equal the previous level's (the controller saturated) passes without generating again.
Results go into rlve_jax/gym/top_levels.json (read by Environment.max_difficulty); environments
already there are skipped unless --redo, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pebble  # noqa: E402

from rlve_jax.gym import env as env_module  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402

WALL_FACTOR = 30  # a niced probe on a shared machine gets little CPU: the wall clock is only a backstop


class CpuBudgetSpent(BaseException):
    """The item used more CPU time than the budget (raised by the profiling timer)."""


def _stop_item(signum, frame):
    raise CpuBudgetSpent()


def _init_worker(address_space_mb: int) -> None:
    """Cap the address space (a runaway fails fast with MemoryError) and import the gym up front."""
    import resource

    limit = address_space_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    registry.names()


def _peak_rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def probe_item(name: str, level: int, seed: int, cpu_limit_s: float) -> dict:
    """CPU seconds, peak RSS and prompt size of one generate + verify(reference) in this worker;
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
    except CpuBudgetSpent:
        return {"seconds": time.process_time() - start, "rss_mb": _peak_rss_mb(), "prompt_chars": 0,
                "reference_wrong": 0}
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return {"seconds": time.process_time() - start, "rss_mb": _peak_rss_mb(), "prompt_chars": len(problem.prompt),
            "reference_wrong": int(not correct)}


def probe_env(pool: pebble.ProcessPool, name: str, args: argparse.Namespace) -> dict:
    """The top level of one environment and what ended the probe."""
    environment = registry.make(name)
    worst = {"seconds": 0.0, "rss_mb": 0.0, "prompt_chars": 0, "reference_wrong": 0}
    previous_levels = None
    for level in range(args.max_level + 1):
        try:
            settings = environment.levels(level)
        except Exception as error:  # noqa: BLE001
            return {"max_difficulty": level - 1, "stopped_by": f"levels: {type(error).__name__}", "worst": worst}
        if settings == previous_levels:
            continue
        previous_levels = settings
        for seed in range(args.seeds):
            future = pool.schedule(probe_item, args=(name, level, seed, args.time_s * 1.05),
                                   timeout=args.time_s * WALL_FACTOR)
            try:
                result = future.result()
            except concurrent.futures.TimeoutError:
                return {"max_difficulty": level - 1, "stopped_by": f"time (wall > {args.time_s * WALL_FACTOR:g} s)",
                        "at": [level, seed], "worst": worst}
            except pebble.ProcessExpired as error:
                return {"max_difficulty": level - 1, "stopped_by": f"crash (exit {error.exitcode})",
                        "at": [level, seed], "worst": worst}
            except MemoryError:
                return {"max_difficulty": level - 1, "stopped_by": "memory (MemoryError)", "at": [level, seed],
                        "worst": worst}
            except Exception as error:  # noqa: BLE001
                return {"max_difficulty": level - 1, "stopped_by": f"error: {type(error).__name__}: "
                        f"{str(error)[:120]}", "at": [level, seed], "worst": worst}
            broken = [budget for budget, key, limit in (("time", "seconds", args.time_s),
                                                        ("memory", "rss_mb", args.memory_mb),
                                                        ("prompt", "prompt_chars", args.prompt_chars),
                                                        ("reference", "reference_wrong", 0))
                      if result[key] > limit]
            if broken:
                return {"max_difficulty": level - 1, "stopped_by": ",".join(broken), "at": [level, seed],
                        "measured": {k: round(v, 3) for k, v in result.items()}, "worst": worst}
            worst = {k: round(max(worst[k], result[k]), 3) for k in worst}
    return {"max_difficulty": args.max_level, "stopped_by": "cap", "worst": worst}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="C400", help="collection or comma-separated identifiers")
    parser.add_argument("--max-level", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-s", type=float, default=2.0)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--prompt-chars", type=int, default=65536)
    parser.add_argument("--out", type=Path, default=Path(env_module.TOP_LEVELS_PATH))
    parser.add_argument("--redo", action="store_true", help="probe environments already in --out again")
    parser.add_argument("--warm-levels", action="store_true",
                        help="one worker per environment instead of per item: faster, but caches warmed by the "
                             "lower levels can understate a level's cost")
    args = parser.parse_args()

    budgets = {"time_cpu_s": args.time_s, "memory_mb": args.memory_mb, "prompt_chars": args.prompt_chars,
               "max_level": args.max_level}  # the seeds probed are recorded per environment
    data = json.loads(args.out.read_text()) if args.out.exists() else {}
    data["budgets"] = budgets
    data.setdefault("levels", {})
    names = [n for n in registry.resolve(args.envs) if registry.is_implemented(n)
             and (args.redo or n not in data["levels"])]
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no thread-stack reservations in the workers
    print(f"probing {len(names)} environments up to level {args.max_level} with budgets {budgets}", flush=True)
    for i, name in enumerate(names):
        start = time.perf_counter()
        # A fresh worker per item (max_tasks=1): a process keeps the memory an earlier item touched, and
        # its caches (lru_cache, sieves) make a level cheaper after the levels below it, which would
        # understate a cold worker's cost. The address-space cap sits above the RSS budget (an
        # interpreter reserves more than it touches).
        with pebble.ProcessPool(max_workers=1, max_tasks=0 if args.warm_levels else 1, initializer=_init_worker,
                                initargs=(args.memory_mb + 1024,),
                                context=multiprocessing.get_context("spawn")) as pool:
            row = probe_env(pool, name, args)
        data["levels"][name] = {**row, "seeds": args.seeds, "probe_wall_s": round(time.perf_counter() - start, 1)}
        data["levels"] = dict(sorted(data["levels"].items()))
        tmp = args.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
        tmp.replace(args.out)  # atomic: an interrupted probe never leaves a torn file
        print(f"[{i + 1}/{len(names)}] {name:45s} top {row['max_difficulty']:3d}  {row['stopped_by']:24s} "
              f"{data['levels'][name]['probe_wall_s']:6.1f} s", flush=True)


if __name__ == "__main__":
    main()
