"""Runs one candidate program on its test inputs, inside the sandbox (standard library only).

    python -I code_harness.py        # in the sandbox's working directory: program.py, tests.json

tests.json: {"mode": "stdin" | "functional", "fn_name": str, "inputs": [str], "timeout_s": float}.
Each test runs in a forked child (fresh program state, a real stdin and stdout, its own time limit);
one JSON line per test goes to stdout: {"test", "status": ok|error|timeout|signal, "output", "error"}.
Expected outputs never enter the sandbox: the evaluator compares outside, so a program that
tampers with this harness can only lose. A compile error, error or timeout ends the run (the
sample has failed), as in LiveCodeBench.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
import traceback

OUTPUT_CAP = 1 << 26  # bytes of one test's output that are read back


def _child(code, spec: dict, test_input: str, out_path: str) -> None:
    """In the forked child: run the program on one input; never returns."""
    status = 0
    try:
        if spec["mode"] == "stdin":
            in_path = ".in"
            with open(in_path, "w", encoding="utf-8") as f:
                f.write(test_input)
            os.dup2(os.open(in_path, os.O_RDONLY), 0)
            os.dup2(os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
            sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            try:
                exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
            except SystemExit as e:
                if e.code not in (None, 0):
                    raise
            sys.stdout.flush()
        else:
            result_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the program's own prints are not its answer
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            namespace = {"__name__": "program", "__builtins__": __builtins__}
            exec(code, namespace)
            solution = namespace.get("Solution")
            fn = getattr(solution(), spec["fn_name"]) if solution is not None and hasattr(
                solution, spec["fn_name"]) else namespace[spec["fn_name"]]
            args = [json.loads(line) for line in test_input.split("\n") if line.strip()]
            value = fn(*args)
            os.write(result_fd, json.dumps(value).encode())
    except BaseException:  # noqa: BLE001 - any failure of the program is its verdict
        kind, value, _ = sys.exc_info()
        lines = traceback.format_exception_only(kind, value)
        os.write(2, "".join(lines)[-2000:].encode(errors="replace"))
        status = 1
    os._exit(status)


def _run_test(code, spec: dict, index: int, test_input: str) -> dict:
    out_path = f".out{index}"
    err_r, err_w = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(err_r)
        os.dup2(err_w, 2)
        _child(code, spec, test_input, out_path)
    os.close(err_w)
    pidfd = os.pidfd_open(pid)
    finished = select.select([pidfd], [], [], spec["timeout_s"])[0]
    if not finished:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    seconds = time.monotonic() - start
    error = os.read(err_r, 4096).decode(errors="replace")
    os.close(err_r)
    record = {"test": index, "seconds": round(seconds, 4)}
    if not finished:
        return {**record, "status": "timeout"}
    if os.WIFSIGNALED(status):
        return {**record, "status": "signal", "error": signal.Signals(os.WTERMSIG(status)).name}
    if os.WEXITSTATUS(status) != 0:
        return {**record, "status": "error", "error": error.strip()}
    try:
        with open(out_path, "rb") as f:
            output = f.read(OUTPUT_CAP).decode("utf-8", errors="replace")
        os.unlink(out_path)
    except OSError as e:
        return {**record, "status": "error", "error": f"no output: {e}"}
    return {**record, "status": "ok", "output": output}


def main() -> None:
    with open("tests.json", encoding="utf-8") as f:
        spec = json.load(f)
    with open("program.py", encoding="utf-8") as f:
        source = f.read()
    os.unlink("tests.json")
    emit = lambda record: sys.stdout.write(json.dumps(record) + "\n") and sys.stdout.flush()  # noqa: E731
    try:
        code = compile(source, "program.py", "exec")
    except BaseException as e:  # noqa: BLE001 - SyntaxError, ValueError (null bytes), RecursionError
        emit({"test": -1, "status": "error", "error": f"compile: {type(e).__name__}: {e}"})
        return
    for index, test_input in enumerate(spec["inputs"]):
        record = _run_test(code, spec, index, test_input)
        emit(record)
        if record["status"] != "ok":
            break


if __name__ == "__main__":
    main()
