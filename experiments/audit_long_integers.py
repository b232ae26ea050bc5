"""Which environments' answers pass Python's 4,300-digit int<->str limit (the audit behind tests/test_long_answers.py).

    nice -n 19 python experiments/audit_long_integers.py                  # all 400
    python experiments/audit_long_integers.py --envs Cinema,Sorting

Each environment is generated at levels 0, 4, ..., 40 over seeds 0-2 (above its top level too) in a fresh worker
with the digit limit lifted, so that long integers can be measured. Per level it records the longest integer in
the instance data (int objects), the longest run of digits in the reference answer and in the prompt. An item
that takes more than --item-cpu-s CPU seconds ends the climb: the levels above are slower still, past any top
level. An environment whose reference answer or data integer passes 4,300 digits is flagged; every flagged one
must declare `long_answers` (its verifier then reads integers of up to MAX_ANSWER_CHARS digits), and
tests/test_long_answers.py verifies one of its long problems under Python's default limit.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import resource
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import find_top_levels as probe  # noqa: E402
from rlve_jax.gym import registry  # noqa: E402

PYTHON_DIGIT_LIMIT = sys.int_info.default_max_str_digits
DIGIT_RUN = re.compile(r"[0-9]+")


def longest_int(value) -> int:
    """Decimal digits of the longest int in a JSON-native value (no str conversion: it may be huge)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return len(str(abs(value))) if value.bit_length() < 64 else int(value.bit_length() * 0.30103) + 1
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return max(map(longest_int, value), default=0)
    return 0


def longest_run(text: str) -> int:
    return max(map(len, DIGIT_RUN.findall(text)), default=0)


def audit_env(connection, name: str, seeds: list[int], item_cpu_s: float) -> None:
    """The worker: the limit lifted, levels 0, 4, ..., 40 until an item runs out of CPU; sends (rows, stop)."""
    sys.set_int_max_str_digits(0)
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    signal.signal(signal.SIGPROF, probe._stop_item)
    environment, rows, stop = registry.make(name), [], None
    for level in range(0, 41, 4):
        row = {"level": level, "data_int": 0, "reference": 0, "prompt": 0}
        for seed in seeds:
            signal.setitimer(signal.ITIMER_PROF, item_cpu_s)
            try:
                problem = environment.generate_any_level(level, seed)
                reference = environment.reference(problem) or ""
            except (probe.CpuBudgetSpent, MemoryError) as error:
                stop = f"{type(error).__name__} at level {level}, seed {seed}"
                break
            except Exception as error:  # noqa: BLE001 -- reported, the climb ends
                stop = f"{type(error).__name__}: {str(error)[:80]} at level {level}, seed {seed}"
                break
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            row = {"level": level, "data_int": max(row["data_int"], longest_int(problem.data)),
                   "reference": max(row["reference"], longest_run(reference)),
                   "prompt": max(row["prompt"], longest_run(problem.prompt))}
        if stop:
            break
        rows.append(row)
    times = os.times()
    connection.send((rows, stop, times.user + times.system))


def audit(name: str, args: argparse.Namespace) -> tuple[str, list[dict], str | None]:
    receive, send = args.context.Pipe(duplex=False)
    process = args.context.Process(target=audit_env, args=(send, name, [0, 1, 2], args.item_cpu_s))
    process.start()
    send.close()
    try:
        rows, stop, cpu_s = receive.recv()
    except EOFError:
        rows, stop, cpu_s = [], "the worker died", 0.0
    process.join()
    probe.WORKER_CPU_S.append(cpu_s)
    return name, rows, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default="C400", help="collection or comma-separated identifiers")
    parser.add_argument("--item-cpu-s", type=float, default=3.0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.context = probe.worker_context()
    start = time.perf_counter()
    flagged = []
    print(f"{'environment':45s} {'up to':>6s} {'data int':>9s} {'reference':>9s} {'prompt':>9s}  long_answers  stop")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name, rows, stop in pool.map(lambda n: audit(n, args), registry.resolve(args.envs)):
            data_int, reference, prompt = (max((r[k] for r in rows), default=0) for k in ("data_int", "reference",
                                                                                          "prompt"))
            declared = registry.make(name).long_answers
            if max(data_int, reference) > PYTHON_DIGIT_LIMIT:
                flagged.append(name)
            if max(data_int, reference, prompt) > 1000 or declared:
                print(f"{name:45s} {rows[-1]['level'] if rows else '-':>6} {data_int:9d} {reference:9d} {prompt:9d}  "
                      f"{str(declared):12s}  {stop or ''}", flush=True)
    undeclared = [n for n in flagged if not registry.make(n).long_answers]
    print(f"past {PYTHON_DIGIT_LIMIT} digits: {', '.join(flagged) or 'none'}; without long_answers: "
          f"{', '.join(undeclared) or 'none'} ({sum(probe.WORKER_CPU_S):.0f} CPU s in the workers, "
          f"{time.perf_counter() - start:.0f} s wall)")
    raise SystemExit(1 if undeclared else 0)


if __name__ == "__main__":
    main()
