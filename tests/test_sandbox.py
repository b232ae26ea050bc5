"""The sandbox: isolation facts, the refusal path, and adversarial programs each contained with a verdict.

Every adversarial program runs under small limits (512 MB, 16 processes, 2 s CPU, 4 s wall, 1 MiB
output), and only in the namespace sandbox (never bare), so none of them can reach this machine.
"""

import ast
import os
import socket
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from rlve_jax.evaluation import sandbox as sb
from rlve_jax.evaluation.sandbox import Limits, Sandbox, SandboxUnavailable

LIMITS = Limits(cpu_s=2, wall_s=4, memory_mb=512, processes=16, output_bytes=1 << 20, disk_mb=16)
ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def box():
    box = Sandbox("namespaces", LIMITS)  # raises SandboxUnavailable (a failure, not a skip) without isolation
    assert box.isolation == "namespaces"
    return box


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", code, *args]


def assert_still_runs(box: Sandbox) -> None:
    result = box.run(python("print(6 * 7)"))
    assert (result.status, result.stdout) == ("ok", b"42\n"), result


def test_the_program_sees_a_fresh_minimal_world(box):
    code = ("import os, socket\n"
            "print(os.getuid(), os.getpid(), os.getcwd(), [n for _, n in socket.if_nameindex()])\n"
            "print(sorted(p for p in os.listdir('/proc') if p.isdigit()))\n"
            "print(sorted(os.environ))\n"
            "print(open('given.txt').read(), input())\n")
    result = box.run(python(code), {"given.txt": "a file"}, stdin=b"a line\n")
    assert result.status == "ok", result
    ids, pids, env, files = result.stdout.decode().splitlines()
    uid, pid, cwd, interfaces = ids.split(" ", 3)
    assert (cwd, interfaces) == (sb.WORKDIR, "['lo']")
    assert int(pid) <= 3 and len(ast.literal_eval(pids)) <= 3  # its own PID namespace: launcher's init, itself
    assert not ROOT or int(uid) == box.uid  # never root
    assert set(ast.literal_eval(env)) == set(sb.minimal_env())
    assert files == "a file a line"


def test_refuses_with_one_line_when_isolation_is_unavailable(monkeypatch):
    monkeypatch.setattr(sb, "_PROBED", {})
    monkeypatch.setattr(sb, "_run_isolated", lambda *a, **k: sb.Result(
        "error", detail="namespace setup failed: [Errno 1] Operation not permitted"))
    with pytest.raises(SandboxUnavailable) as err:
        Sandbox("namespaces")
    message = str(err.value)
    assert "\n" not in message and "Operation not permitted" in message and "eval.sandbox=none" in message
    bare = Sandbox("none")  # the explicit opt-out runs, unisolated
    assert bare.run(python("print('bare')")).stdout == b"bare\n"
    with pytest.raises(ValueError, match="isolation"):
        Sandbox("chroot")


def test_infinite_loop_is_stopped(box):
    start = time.monotonic()
    result = box.run(python("while True: pass"))
    assert result.verdict in ("cpu time limit", "wall time limit"), result
    assert time.monotonic() - start < LIMITS.wall_s + sb.LAUNCH_SLACK_S
    assert_still_runs(box)


def _sandbox_uid_processes(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            count += fields["Uid"].split()[0] == str(uid) and not fields["State"].strip().startswith("Z")
    return count


def test_fork_bomb_is_capped_and_cleaned_up(box):
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    peak, done = [0], threading.Event()

    def watch():  # under root every process of the run has the sandbox uid: count them from outside
        while not done.is_set():
            peak[0] = max(peak[0], _sandbox_uid_processes(box.uid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    if ROOT:
        watcher.start()
    result = box.run(python(code))
    done.set()
    assert result.verdict in ("wall time limit", "cpu time limit"), result
    if ROOT:
        watcher.join()
        assert 0 < peak[0] <= LIMITS.processes, peak
        time.sleep(0.2)
        assert _sandbox_uid_processes(box.uid) == 0  # the PID namespace took every leftover with it
    assert_still_runs(box)


def test_process_limit_counts_per_run(box):
    code = ("import os, time\nn = 0\nfor _ in range(64):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(2)\n        os._exit(0)\n"
            "    n += 1\nprint(n)\n")
    result = box.run(python(code))
    assert result.status == "ok", result
    assert 0 < int(result.stdout) < LIMITS.processes  # launcher, init and the program count too


def test_ten_gigabyte_allocation_fails_inside(box):
    result = box.run(python("x = bytearray(10 * 2**30)\nprint('allocated')"))
    assert result.verdict == "exit 1" and b"MemoryError" in result.stderr and not result.stdout, result
    assert_still_runs(box)


def test_writes_outside_the_working_directory_never_land(box, tmp_path):
    marker = f"rlve_sandbox_escape_{uuid.uuid4().hex}"
    targets = [str(tmp_path / marker), str(Path(__file__).parent / marker), f"/etc/{marker}",
               os.path.expanduser(f"~/{marker}"), f"/var/tmp/{marker}", f"/dev/shm/{marker}"]
    code = ("import sys\nfor path in sys.argv[1:]:\n    try:\n        open(path, 'w').write('x')\n"
            "        print('wrote', path)\n    except OSError as e:\n        print('denied', e.errno)\n"
            f"open('/tmp/{marker}', 'w').write('inside')\nprint(open('/tmp/{marker}').read())\n")
    result = box.run(python(code, *targets))
    assert result.status == "ok", result
    lines = result.stdout.decode().splitlines()
    assert all(line.startswith("denied") or line.startswith("wrote /tmp/") for line in lines[:-1]), lines
    assert lines[-1] == "inside"  # its own /tmp is writable (a tmpfs that vanishes with the run)
    assert not any(os.path.exists(t) for t in targets + [f"/tmp/{marker}"])
    assert_still_runs(box)


def test_no_network_even_to_the_hosts_loopback(box):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    port = server.getsockname()[1]
    code = ("import socket, sys\nfor host, port in (('127.0.0.1', int(sys.argv[1])), ('1.1.1.1', 53)):\n"
            "    s = socket.socket()\n    s.settimeout(1)\n    try:\n        s.connect((host, port))\n"
            "        print('connected', host)\n    except OSError as e:\n        print('refused', e.errno)\n")
    try:
        result = box.run(python(code, str(port)))
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    assert result.status == "ok", result
    assert result.stdout.decode().split() == ["refused", "101"] * 2  # ENETUNREACH: only a downed loopback
    assert_still_runs(box)


def test_printing_a_gigabyte_hits_the_output_cap(box):
    code = "import sys\nblock = b'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.buffer.write(block)\n"
    start = time.monotonic()
    result = box.run(python(code))
    assert result.status == "output_limit" and len(result.stdout) <= LIMITS.output_bytes, result.status
    assert time.monotonic() - start < LIMITS.wall_s
    assert_still_runs(box)


def test_killing_the_parent_reaches_nothing_outside(box):
    code = ("import os, signal, sys\nfor pid in (int(sys.argv[1]), os.getppid(), 1):\n    try:\n"
            "        os.kill(pid, signal.SIGKILL)\n        print('sent', pid)\n"
            "    except ProcessLookupError:\n        print('unseen', pid)\n")
    result = box.run(python(code, str(os.getpid())))
    assert result.stdout.decode().split()[:2] == ["unseen", str(os.getpid())], result  # the evaluator is invisible
    assert result.status == "ok", result  # the parent it sees is its PID namespace's init, which ignores it
    assert_still_runs(box)


def test_the_evaluators_environment_stays_secret(box, monkeypatch):
    secret = f"rlve-secret-{uuid.uuid4().hex}"
    monkeypatch.setenv("RLVE_SANDBOX_SECRET", secret)
    code = ("import os\nprint(dict(os.environ))\nfor p in os.listdir('/proc'):\n    if p.isdigit():\n"
            "        try:\n            print(p, open(f'/proc/{p}/environ', 'rb').read())\n"
            "        except OSError as e:\n            print(p, e.errno)\n")
    result = box.run(python(code))
    assert result.status == "ok", result
    assert secret.encode() not in result.stdout and b"RLVE_SANDBOX_SECRET" not in result.stdout
    assert f"\n{os.getpid()} ".encode() not in result.stdout
    assert_still_runs(box)


def test_bare_mode_is_a_plain_subprocess_with_wall_and_output_caps():
    bare = Sandbox("none", Limits(wall_s=1, output_bytes=1 << 16))
    assert bare.run(python("import time; time.sleep(30)")).status == "timeout"
    assert bare.run(python("print('x' * 100000)")).status == "output_limit"
    result = bare.run(python("import sys; print(open('f').read()); sys.exit(3)"), {"f": "data"})
    assert (result.status, result.exit_code, result.stdout) == ("exit", 3, b"data\n")
    assert bare.run(python("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")).verdict == "SIGTERM"


@pytest.mark.parametrize("isolation", ["namespaces", "none"])
def test_a_run_whose_stdout_stalls_is_ended(isolation):
    box = Sandbox(isolation, Limits(wall_s=20, stall_s=1.0))
    start = time.monotonic()
    result = box.run(python("import time\nprint('started', flush=True)\ntime.sleep(30)"))
    assert (result.status, result.verdict, result.stdout) == ("stalled", "stdout stalled", b"started\n"), result
    assert time.monotonic() - start < 5
    silent = box.run(python("import time\ntime.sleep(1.5)\nprint('late')"))  # the limit runs from the first byte
    assert (silent.status, silent.stdout) == ("ok", b"late\n"), silent
