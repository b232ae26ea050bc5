"""Attacks on the judge, one per class (issues 32 and 42), each followed by a correct program that still passes.

Each attack runs as `code_eval.judge` runs a candidate, or as a bare `Sandbox.run` with small limits:
a forged verdict from a data set on the host filesystem, a host socket file, a plain-user evaluator's
0600 file and group-owned socket, an inode bomb, memfd, SysV shared-memory and socket-buffer bombs, a
grown pipe, a SIGSTOP of the harness; the interpreter in a virtual environment under /tmp and under the
evaluator's home; a correct program's stderr (large, or beside a program holding the uid's pipe quota);
processes a test leaves running (a fork chain, sleepers at the process limit) under load.
A plain-user evaluator is refused with one line (its programs would keep its uid and groups).
The host-side bait lives under /var/tmp (as a user's downloaded data set would live under /data), a
directory the sandbox's own /tmp never covers.
"""

import ast
import base64
import json
import os
import pickle
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rlve_jax.evaluation import code_eval
from rlve_jax.evaluation import sandbox as sb
from rlve_jax.evaluation.sandbox import Limits, Sandbox, SandboxUnavailable

LIMITS = Limits(cpu_s=2, wall_s=6, memory_mb=512, processes=16, output_bytes=1 << 20, disk_mb=16)
REPO = Path(__file__).resolve().parents[1]
ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def box():
    return Sandbox("namespaces", LIMITS)


@pytest.fixture
def host_dir():
    """A world-readable directory on the host, outside any path the sandbox mounts over."""
    path = Path("/var/tmp") / f"rlve-attack-{uuid.uuid4().hex}"
    path.mkdir(mode=0o755)
    path.chmod(0o755)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", code, *args]


def assert_still_runs(box: Sandbox) -> None:
    result = box.run(python("print(6 * 7)"))
    assert (result.status, result.stdout) == ("ok", b"42\n"), result


class SocketServer:
    """A Unix socket listening at `path` on the host; records whether anything connected."""

    def __init__(self, path: Path, mode: int, group: int = -1) -> None:
        self.path, self.connected = path, threading.Event()
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        os.chown(path, -1, group)
        os.chmod(path, mode)
        self.server.listen(4)
        self.server.settimeout(0.2)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.server.accept()
            except OSError:
                continue
            self.connected.set()
            conn.close()

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        self.server.close()


CONNECT = ("import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect(sys.argv[1])\n"
           "    print('connected')\nexcept OSError as e:\n    print('refused', e.errno)\n")


# ---------------------------------------------------------------------------
# 1. A forged verdict: the benchmark's own data set, read from the host filesystem


def livecodebench_row(tests: list[tuple[str, str]]) -> dict:
    """A row in LiveCodeBench's released format: the first test public, the rest private (encoded)."""
    cases = [{"input": i, "output": o, "testtype": "stdin"} for i, o in tests]
    private = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases[1:])))).decode()
    return {"question_id": "attack1", "question_title": "a*b+7", "question_content": "Print a*b+7.",
            "starter_code": "", "public_test_cases": json.dumps(cases[:1]), "private_test_cases": private,
            "metadata": "{}", "difficulty": "easy", "contest_date": "2024-01-01T00:00:00"}


FORGER = """
import base64, json, os, pickle, sys, zlib
wanted = sys.stdin.read().strip()
for root in ('/data', '/var/tmp', '/srv', '/mnt', '/home', '/opt'):
    for folder, _, names in os.walk(root):
        for name in names:
            if not name.endswith('.jsonl'):
                continue
            try:
                lines = open(os.path.join(folder, name)).read().splitlines()
            except OSError:
                continue
            for line in lines:
                row = json.loads(line)
                private = json.loads(pickle.loads(zlib.decompress(base64.b64decode(row['private_test_cases']))))
                for case in json.loads(row['public_test_cases']) + private:
                    if case['input'].strip() == wanted:
                        print(case['output'])
                        sys.exit(0)
print(0)
"""


def test_a_program_cannot_forge_its_verdict_from_the_data_set_on_the_host(host_dir):
    tests = [(f"{a} {b}\n", f"{a * b + 7}\n") for a, b in ((2, 3), (10, 11), (123, 456), (7, 7))]
    data = host_dir / "code_generation_lite"
    data.mkdir(mode=0o755)
    (data / "test.jsonl").write_text(json.dumps(livecodebench_row(tests)) + "\n")
    (data / "test.jsonl").chmod(0o644)
    problem = code_eval.load(data)[0]
    box = Sandbox("namespaces")
    assert not code_eval.judge(problem, "print(0)", box, timeout_s=2).passed
    forged = code_eval.judge(problem, FORGER, box, timeout_s=2)
    assert not forged.passed and forged.tests_passed == 0, forged
    honest = code_eval.judge(problem, "a, b = map(int, input().split())\nprint(a * b + 7)", box, timeout_s=2)
    assert honest.passed, honest


def test_nothing_of_the_host_filesystem_is_visible_but_the_interpreter(box, host_dir):
    (host_dir / "secret.txt").write_text("host data")
    (host_dir / "secret.txt").chmod(0o644)
    code = ("import os, sys\nfor path in sys.argv[1:]:\n    print(path, os.path.exists(path))\n"
            "print(sorted(os.listdir('/')))\n")
    hidden = [str(host_dir / "secret.txt"), str(REPO / "README.md"), "/root/.bashrc", "/home", "/var", "/run",
              "/etc/hostname", "/sys/kernel"]
    result = box.run(python(code, *hidden, sys.executable))
    assert result.status == "ok", result
    *seen, top = result.stdout.decode().splitlines()
    assert seen == [f"{path} False" for path in hidden] + [f"{sys.executable} True"], seen
    interpreter = {path.strip("/").split("/")[0] for path in sb._interpreter_paths()}
    assert set(ast.literal_eval(top)) <= {*sb.SYSTEM_DIRS, "dev", "etc", "proc", "tmp", *interpreter}, top
    assert_still_runs(box)


# ---------------------------------------------------------------------------
# 2. A socket file of a host service


def test_a_world_writable_host_socket_is_unreachable(box, host_dir):
    server = SocketServer(host_dir / "service.sock", 0o777)
    try:
        result = box.run(python(CONNECT, str(server.path)))
        time.sleep(0.3)
        assert not server.connected.is_set(), "the program reached the host's socket"
    finally:
        server.close()
    assert result.status == "ok" and result.stdout.startswith(b"refused"), result
    assert_still_runs(box)


# ---------------------------------------------------------------------------
# 3. A plain-user evaluator: its 0600 files and a socket owned by one of its groups


PLAIN_UID, PLAIN_GID, SOCKET_GID = 47011, 47011, 47012
EVALUATOR = """
import json, sys
sys.path.insert(0, sys.argv[1])
from rlve_jax.evaluation.sandbox import Limits, Sandbox, SandboxUnavailable
try:
    box = Sandbox("namespaces", Limits(cpu_s=2, wall_s=6, memory_mb=512, processes=16, disk_mb=16))
except SandboxUnavailable as e:
    print(json.dumps({"refused": str(e)}))
    sys.exit(0)
attack = box.run([sys.executable, "-I", "-S", "-c", sys.argv[2], *sys.argv[3:]])
print(json.dumps({"status": attack.status, "stdout": attack.stdout.decode(), "stderr": attack.stderr.decode()}))
"""
STEAL = """
import os, socket, sys
print('ids', os.getuid(), os.getgid(), sorted(os.getgroups()))
try:
    print('read', open(sys.argv[1]).read().strip())
except OSError as e:
    print('unreadable', e.errno)
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[2])
    print('connected')
except OSError as e:
    print('refused', e.errno)
"""


def plain_user_python() -> str:
    """An interpreter the plain user can run (this one may live under root's 0700 home)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        try:
            run = subprocess.run([candidate, "-c", "import json, ctypes"], user=PLAIN_UID, group=PLAIN_GID,
                                 extra_groups=[SOCKET_GID], capture_output=True)
        except OSError:  # missing, or under a directory the plain user cannot traverse
            continue
        if run.returncode == 0:
            return candidate
    raise AssertionError("no Python interpreter the plain user can run")


@pytest.mark.skipif(not ROOT, reason="creating a plain-user evaluator needs root (CI runs as root)")
def test_a_plain_user_evaluator_never_lends_the_program_its_identity(host_dir):
    home = host_dir / "home"
    home.mkdir(mode=0o700)
    os.chown(home, PLAIN_UID, PLAIN_GID)
    netrc = home / ".netrc"
    netrc.write_text("machine huggingface.co password hf_secret_token\n")
    os.chown(netrc, PLAIN_UID, PLAIN_GID)
    netrc.chmod(0o600)
    server = SocketServer(host_dir / "docker.sock", 0o660, group=SOCKET_GID)
    try:
        run = subprocess.run([plain_user_python(), "-I", "-c", EVALUATOR, str(REPO), STEAL, str(netrc),
                              str(server.path)], user=PLAIN_UID, group=PLAIN_GID, extra_groups=[SOCKET_GID],
                             env={"HOME": str(home), "PATH": "/usr/bin:/bin"}, cwd=str(home),
                             capture_output=True, text=True, timeout=60)
        time.sleep(0.3)
        assert not server.connected.is_set(), "the program reached the evaluator's group socket"
    finally:
        server.close()
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # An unprivileged user namespace can map no identity but the evaluator's own, so the sandbox refuses
    # (one line) rather than run the program with the evaluator's uid and groups; nothing ran.
    assert "refused" in report, report
    message = report["refused"]
    assert "\n" not in message and "plain user" in message and "eval.sandbox=none" in message, message
    assert_still_runs(Sandbox("namespaces", LIMITS))  # a root evaluator, as in CI


# ---------------------------------------------------------------------------
# 4. Kernel memory: inodes, memfd, SysV shared memory


INODE_BOMB = """
import os
n = 0
try:
    while n < 3_000_000:
        os.close(os.open(f'f{n}', os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
        if n % 5000 == 0:
            print(n, flush=True)
except OSError as e:
    print(n, 'stopped', e.errno, flush=True)
"""


def test_an_inode_bomb_is_capped(box):
    result = box.run(python(INODE_BOMB))
    created = max((int(line.split()[0]) for line in result.stdout.decode().splitlines()), default=0)
    assert created <= LIMITS.inodes, (created, result.status)
    assert result.status == "ok" and b"stopped 28" in result.stdout, result  # ENOSPC at the cap
    assert_still_runs(box)


MEMFD_BOMB = """
import os
held, fds, block = 0, [], b'x' * (1 << 20)
try:
    while held < 1536:
        fd = os.memfd_create(f'm{len(fds)}')
        fds.append(fd)
        for _ in range(8):
            os.write(fd, block)
            held += 1
        print(held, flush=True)
except OSError as e:
    print(held, 'stopped', e.errno, flush=True)
"""
SHM_BOMB = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
held, size = 0, 32 << 20
while held < 1536:
    segment = libc.shmget(0, ctypes.c_size_t(size), 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if segment < 0:
        print(held, 'stopped', ctypes.get_errno(), flush=True)
        break
    address = libc.shmat(segment, None, 0)
    if address in (None, ctypes.c_void_p(-1).value):
        print(held, 'stopped', ctypes.get_errno(), flush=True)
        break
    ctypes.memset(address, 1, size)
    libc.shmdt(address)  # the segment (never removed) keeps its pages
    held += 32
    print(held, flush=True)
"""


def bounded_box(bound: str) -> Sandbox | None:
    """A sandbox with this memory bound; None where no memory cgroup can be made (asking for one is then
    refused, in one line)."""
    if bound == "cgroup" and not sb.memory_cgroup_parent():
        with pytest.raises(SandboxUnavailable, match="no writable memory cgroup") as err:
            Sandbox("namespaces", LIMITS, memory_bound="cgroup")
        assert "\n" not in str(err.value)
        return None
    return Sandbox("namespaces", LIMITS, memory_bound=bound)


@pytest.mark.parametrize("bound", ["cgroup", "seccomp"])
@pytest.mark.parametrize("bomb", [MEMFD_BOMB, SHM_BOMB], ids=["memfd", "sysv-shm"])
def test_memory_outside_the_address_space_is_bounded(bomb, bound):
    box = bounded_box(bound)
    if box is None:
        return
    result = box.run(python(bomb))
    held = max((int(line.split()[0]) for line in result.stdout.decode().splitlines()), default=0)
    assert held <= LIMITS.run_memory_mb, (held, result.status, result.stderr[-300:])
    if bound == "seccomp":  # the calls themselves are refused
        assert (held, result.status) == (0, "ok") and b"stopped 1" in result.stdout, result
    else:  # the run's cgroup kills the holder once the run holds its memory limit
        assert result.verdict == "SIGKILL", result
    assert_still_runs(box)


SOCKET_BOMB = """
import os, socket, time
def fill(share):  # unix socketpairs with SO_SNDBUF raised, filled until the share (or the first refusal)
    held, pairs = 0, []
    try:
        while held < share:
            pairs.append(socket.socketpair())
            for end in pairs[-1]:
                end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
                end.setblocking(False)
                try:
                    while held < share:
                        held += end.send(b'x' * 65536)
                except BlockingIOError:
                    pass
        print(held >> 20, 'held', flush=True)
    except OSError as e:
        print(held >> 20, 'stopped', e.errno, flush=True)
    time.sleep(2)
for _ in range(4):
    if os.fork() == 0:
        fill((1536 << 20) // 5)
        os._exit(0)
fill((1536 << 20) // 5)
"""


@pytest.mark.parametrize("bound", ["cgroup", "seccomp"])
def test_socket_buffers_are_bounded(bound):
    """5 processes filling socketpairs: kernel memory outside any address space (1.5 GiB under the old filter)."""
    box = bounded_box(bound)
    if box is None:
        return
    result = box.run(python(SOCKET_BOMB))
    lines = result.stdout.decode().splitlines()
    held = sum(int(line.split()[0]) for line in lines)  # each process's last word
    assert held <= LIMITS.run_memory_mb, (held, result.status, result.stderr[-300:])
    if bound == "seccomp":  # no socket can be made
        assert result.status == "ok" and lines == ["0 stopped 1"] * 5, result
    assert_still_runs(box)


def test_the_seccomp_bound_keeps_pipes_at_their_default_size():
    """Growing pipes (F_SETPIPE_SZ) pins kernel memory and uses up the pipe quota every run of the uid shares."""
    code = ("import fcntl, os\nr, w = os.pipe()\ntry:\n    fcntl.fcntl(w, 1031, 1 << 20)\n    print('grown')\n"
            "except OSError as e:\n    print('refused', e.errno)\nprint(fcntl.fcntl(w, 1032))\n")
    result = Sandbox("namespaces", LIMITS, memory_bound="seccomp").run(python(code))
    assert (result.status, result.stdout) == ("ok", b"refused 1\n65536\n"), result


def test_an_unknown_memory_bound_is_refused():
    with pytest.raises(ValueError, match="memory_bound"):
        Sandbox("namespaces", memory_bound="rlimit")


# ---------------------------------------------------------------------------
# 5. A program that stops its harness


def test_stopping_the_harness_does_not_hold_the_judge_past_the_per_test_limit():
    problem = code_eval.problem_from_row(livecodebench_row([(f"{a} 1\n", f"{a + 7}\n") for a in range(4)]))
    box = Sandbox("namespaces")
    timeout_s = 1.0
    start = time.monotonic()
    stopped = code_eval.judge(problem, "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n", box,
                              timeout_s=timeout_s)
    seconds = time.monotonic() - start
    assert not stopped.passed and stopped.reason == "stdout stalled", stopped
    assert seconds < timeout_s + code_eval.HARNESS_SLACK_S + 2, seconds  # the run's wall limit is 13 s
    honest = code_eval.judge(problem, "a, b = map(int, input().split())\nprint(a * b + 7)", box, timeout_s=timeout_s)
    assert honest.passed, honest


# ---------------------------------------------------------------------------
# 6. The interpreter wherever it is installed: a virtual environment under /tmp or under $HOME


VENV_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from rlve_jax.evaluation.sandbox import Sandbox
result = Sandbox("namespaces").run([sys.executable, "-I", "-c", "import sys; print(sys.prefix)"])
print(result.status, result.stdout.decode().strip(), result.detail, result.stderr.decode()[-300:])
"""


@pytest.mark.parametrize("where", ["tmp", "home"])
def test_the_sandbox_runs_an_interpreter_from_a_venv_under_tmp_or_home(tmp_path, where):
    parent = tmp_path if where == "tmp" else Path.home()
    venv = Path(parent) / f"rlve-venv-{uuid.uuid4().hex}"
    try:
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        python_in_venv = venv / "bin" / "python"
        run = subprocess.run([str(python_in_venv), "-I", "-c", VENV_RUN, str(REPO)], capture_output=True,
                             text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert run.stdout.split()[:2] == ["ok", str(venv)], run.stdout
    finally:
        shutil.rmtree(venv, ignore_errors=True)


# ---------------------------------------------------------------------------
# 7. A correct program's stderr: large, or beside a program holding the uid's pipe quota


PIPE_QUOTA = int(Path("/proc/sys/fs/pipe-user-pages-soft").read_text()) * 4096  # bytes of pipes per uid
PIPE_MAX = int(Path("/proc/sys/fs/pipe-max-size").read_text())  # the largest pipe a user may ask for
PIPE_QUOTA_HOG = """
import fcntl, os, sys, time
pipes = []
try:
    while True:  # the largest pipes allowed, until the uid's quota refuses
        pipes.append(os.pipe())
        fcntl.fcntl(pipes[-1][1], 1031, int(sys.argv[1]))
except OSError:
    pass
while fcntl.fcntl(pipes[-1][1], 1032) > 8192:  # past the soft quota: every new pipe of the uid is 8 KiB
    pipes.append(os.pipe())
print('holding', len(pipes), flush=True)
time.sleep(4)
"""
SMALL_PIPE = "import fcntl, os\nprint(fcntl.fcntl(os.pipe()[1], 1032))"


def noisy(stderr_bytes: int) -> str:
    """A correct a+1 program that writes debug output to stderr first."""
    return f"import sys\nsys.stderr.write('d' * {stderr_bytes})\nprint(int(input()) + 1)\n"


def test_a_correct_program_is_never_judged_by_its_stderr():
    problem = code_eval.CodeProblem("noisy", "a+1", "q", "", "stdin", "", tuple((f"{a}\n", f"{a + 1}\n")
                                                                                 for a in range(3)))
    box = Sandbox("namespaces")
    for size in (70_000, 1_000_000):  # a pipe holds 64 KiB
        judgement = code_eval.judge(problem, noisy(size), box, timeout_s=2)
        assert judgement.passed, (size, judgement)
    if not 0 < PIPE_QUOTA <= 120 * PIPE_MAX:  # no quota here, or more than one program's 256 files can hold
        return
    hog = Sandbox("namespaces", Limits(wall_s=8))
    held = []
    thread = threading.Thread(target=lambda: held.append(hog.run(python(PIPE_QUOTA_HOG, str(PIPE_MAX)))))
    thread.start()
    try:
        deadline = time.monotonic() + 3
        while box.run(python(SMALL_PIPE)).stdout != b"8192\n":  # a program of the same uid gets small pipes now
            assert time.monotonic() < deadline, "the hog never took the pipe quota"
        judgement = code_eval.judge(problem, noisy(21_000), box, timeout_s=2)
    finally:
        thread.join()
    assert judgement.passed, judgement
    assert held[0].stdout.startswith(b"holding"), held[0]


# ---------------------------------------------------------------------------
# 8. Processes a test leaves running, under load


LEAVES_RUNNERS = """
import os, time
n = int(input())
def written():
    try:
        return os.path.getsize('/tmp/runner')
    except OSError:
        return 0
before = written()
time.sleep(0.01)
leftover = written() != before
for _ in range(3):  # sleepers: with init, the harness, this test and the runner, the run's 8 processes
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
if os.fork() == 0:
    fd = os.open('/tmp/runner', os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    while True:  # a fork chain: each generation starts the next and exits, so its pid keeps changing
        os.write(fd, b'x')
        try:
            if os.fork():
                os._exit(0)
        except OSError:
            pass
time.sleep(0.05)
print('LEFTOVER' if leftover else n + 1)
"""


def test_nothing_a_test_leaves_running_reaches_the_next_test_under_load():
    """Each test looks for the fork chain the test before it left, then leaves sleepers (up to the run's
    process limit) and a new chain. Four runs at once keep both cores busy. The cleanup between tests kills
    the run's whole PID namespace and waits until it is empty: no runner is seen, and the next test's forks
    find the process slots free, however late the kernel lets the killed processes go."""
    problem = code_eval.CodeProblem("runner", "n+1", "q", "", "stdin", "", tuple((f"{n}\n", f"{n + 1}\n")
                                                                                  for n in range(8)))
    box = Sandbox("namespaces")
    with ThreadPoolExecutor(4) as pool:
        judgements = list(pool.map(lambda _: code_eval.judge(problem, LEAVES_RUNNERS, box, timeout_s=2), range(8)))
    assert all(j.passed for j in judgements), [j for j in judgements if not j.passed]
