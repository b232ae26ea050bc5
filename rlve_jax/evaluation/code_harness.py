"""Runs one candidate program on its test inputs, inside the sandbox (standard library only).

    python -I code_harness.py        # in the sandbox's working directory: program.py, tests.json

tests.json: {"mode": "stdin" | "functional", "fn_name": str, "inputs": [str], "timeout_s": float,
"isolated": bool (in the namespace sandbox: leftovers of each test are killed)}.
Each test runs in a forked child (fresh program state, its own time limit) whose stdin, stdout and
stderr are unlinked files, never pipes: no amount of output blocks a test, and no pipe quota (per uid,
shared by every run) that another program exhausts can slow one. One JSON line per test goes to
stdout: {"test", "status": ok|error|timeout|signal, "output", "error"}, after a first line
{"event": "started"} (the evaluator's stall limit runs from it: a test that stops this harness is
cut off one test's time later, as Limits.stall_s). In the sandbox, every process a test left behind
is killed and gone before the next test starts.
Expected outputs never enter the sandbox: the evaluator compares outside, so a program that
tampers with this harness can only lose. A compile error, error or timeout ends the run (the
sample has failed), as in LiveCodeBench.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import sys
import time
import traceback

OUTPUT_CAP = 1 << 26  # bytes of one test's output that are read back
ERROR_TAIL = 4096  # bytes of the end of one test's stderr that are read back (the traceback)


def _anonymous_file(name: str, data: bytes = b"") -> int:
    """A file reachable only through the returned descriptor (created, then unlinked at once)."""
    fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    os.unlink(name)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _child(code, spec: dict, test_input: str, in_fd: int, out_fd: int) -> None:
    """In the forked child: run the program on one input; never returns."""
    status = 0
    try:
        if spec["mode"] == "stdin":
            os.dup2(in_fd, 0)
            os.dup2(out_fd, 1)
            sys.stdin = open(0, "r", encoding="utf-8", closefd=False)
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            try:
                exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
            except SystemExit as e:
                if e.code not in (None, 0):
                    raise
            sys.stdout.flush()
        else:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # the program's own prints are not its answer
            sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
            namespace = {"__name__": "program", "__builtins__": __builtins__}
            exec(code, namespace)
            solution = namespace.get("Solution")
            fn = getattr(solution(), spec["fn_name"]) if solution is not None and hasattr(
                solution, spec["fn_name"]) else namespace[spec["fn_name"]]
            args = [json.loads(line) for line in test_input.split("\n") if line.strip()]
            os.write(out_fd, json.dumps(fn(*args)).encode())
    except BaseException:  # noqa: BLE001 - any failure of the program is its verdict
        kind, value, _ = sys.exc_info()
        lines = traceback.format_exception_only(kind, value)
        os.write(2, "".join(lines)[-2000:].encode(errors="replace"))
        status = 1
    os._exit(status)


def _kill_the_rest(spec: dict) -> None:
    """In the sandbox, SIGKILL every process of the run but init and this harness, and wait until they
    are gone: nothing a test started survives into the next one (to write its output, say). kill(-1)
    reaches every process of the run's PID namespace at once (a process forking at that moment cannot
    leave a child behind), so it does not depend on timing. Only there: the run's own PID namespace
    (this harness is its PID 2, under its init, which reaps the orphans) holds nothing else."""
    if not spec.get("isolated") or (os.getpid(), os.getppid()) != (2, 1):
        return
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:  # nothing else is running
        pass
    while any(entry.isdigit() and int(entry) not in (1, 2) for entry in os.listdir("/proc")):
        try:  # a process made a child of this harness (clone's CLONE_PARENT) is reaped here, the rest by init
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.001)


def _run_test(code, spec: dict, index: int, test_input: str) -> dict:
    in_fd = _anonymous_file(f".in{index}", test_input.encode())
    out_fd = _anonymous_file(f".out{index}")
    err_fd = _anonymous_file(f".err{index}")
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.dup2(err_fd, 2)
        _child(code, spec, test_input, in_fd, out_fd)
    pidfd = os.pidfd_open(pid)
    finished = select.select([pidfd], [], [], spec["timeout_s"])[0]
    if not finished:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    os.close(pidfd)
    seconds = time.monotonic() - start
    _kill_the_rest(spec)
    error_bytes = os.fstat(err_fd).st_size
    error = os.pread(err_fd, ERROR_TAIL, max(0, error_bytes - ERROR_TAIL)).decode(errors="replace")
    output = os.pread(out_fd, OUTPUT_CAP, 0).decode("utf-8", errors="replace")
    for fd in (in_fd, out_fd, err_fd):
        os.close(fd)
    record = {"test": index, "seconds": round(seconds, 4)}
    if not finished:
        return {**record, "status": "timeout"}
    if os.WIFSIGNALED(status):
        return {**record, "status": "signal", "error": signal.Signals(os.WTERMSIG(status)).name}
    if os.WEXITSTATUS(status) != 0:
        return {**record, "status": "error", "error": error.strip()}
    return {**record, "status": "ok", "output": output}


def _not_dumpable() -> None:
    """Tests run as this process's uid: without this they could open /proc/<harness>/fd/1 and write
    records, or read its memory. A non-dumpable process's /proc entries belong to root."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")


def main() -> None:
    with open("tests.json", encoding="utf-8") as f:
        spec = json.load(f)
    with open("program.py", encoding="utf-8") as f:
        source = f.read()
    os.unlink("tests.json")
    _not_dumpable()

    def emit(record: dict) -> None:
        sys.stdout.write(json.dumps(record) + "\n")
        sys.stdout.flush()

    try:
        code = compile(source, "program.py", "exec")
    except BaseException as e:  # noqa: BLE001 - SyntaxError, ValueError (null bytes), RecursionError
        emit({"test": -1, "status": "error", "error": f"compile: {type(e).__name__}: {e}"})
        return
    emit({"event": "started"})  # from here on the evaluator ends the run if this stdout stalls past a test's time
    for index, test_input in enumerate(spec["inputs"]):
        record = _run_test(code, spec, index, test_input)
        emit(record)
        if record["status"] != "ok":
            break


if __name__ == "__main__":
    main()
