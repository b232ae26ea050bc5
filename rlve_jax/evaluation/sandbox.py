"""Run untrusted programs (model-written code) in a fresh, isolated, resource-limited process.

Isolation comes from Linux namespaces set up by this file itself (standard library and ctypes; the
seccomp fallback below uses pyseccomp): the evaluator starts it once as a single-threaded fork
server (`python -I -S sandbox.py --serve FD PYSECCOMP`), which forks one launcher per run; each
launcher builds the run's root and namespaces, forks the run's init, and init forks and execs the
program. The evaluator must be root (a container or VM); each run gets:

* a fresh minimal root (pivot_root in a new mount namespace): a read-only tmpfs holding read-only
  clones of the system directories (/usr, /bin, /lib..., /etc/ld.so.cache, /dev/null and a few
  device files) and of the interpreter's own directories (its prefixes, a venv under /tmp or /root
  included), a /proc of its own, and the run's working directory /tmp (also $HOME): a tmpfs with a
  size and an inode cap holding only the files the caller passed. Nothing else of the host's
  tree (data sets, homes, socket files) is reachable, and no expected output ever enters;
* a new user, PID, network, mount, IPC and UTS namespace: no network (only a downed loopback; the
  network namespace also scopes abstract Unix sockets), no view of other processes, and every
  process left over is killed by the kernel when the run's init exits;
* an unprivileged uid (`uid`, default 65534) with no supplementary groups (setgroups deny in its
  user namespace). A plain-user evaluator is refused with one line: its programs would keep its
  own uid and groups, since an unprivileged user namespace can map no other identity;
* a memory bound beyond each process's address space (memfd, SysV shared memory, kernel objects):
  a memory cgroup per run capped at Limits.run_memory_mb (the program is the OOM killer's first
  choice), or where no cgroup can be made a seccomp filter refusing what could hold kernel memory
  past it and a judged program never needs (SECCOMP_DENIED: memfd, SysV shared memory and message
  queues, sockets, growing a pipe); with neither the sandbox refuses with one line (`memory_bound`
  picks one);
* rlimits per process: CPU seconds, address space, file size, open files, no core dumps, no POSIX
  message queues; a process limit per run (RLIMIT_NPROC, counted per user namespace since Linux
  5.14); a wall-clock limit; an optional stall limit (stdout silent past Limits.stall_s ends the
  run, so a program that stops the code harness holds the judge one test's time); stdout/stderr
  read up to a cap (the run is killed past it); a minimal environment.

`Sandbox(isolation="none")` is the explicit opt-out: a bare subprocess in a temporary directory
with the wall-clock, stall and output limits only. `isolation="namespaces"` refuses to run, with
one line naming the failing step, where the kernel or the container does not allow it.
Linux 5.12+ (open_tree, move_mount, mount_setattr), x86_64 or aarch64.
"""

from __future__ import annotations

import ctypes
import errno
import importlib.util
import json
import os
import platform
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field

ISOLATIONS = ("namespaces", "none")
MEMORY_BOUNDS = ("auto", "cgroup", "seccomp")
# What the seccomp bound refuses (EPERM): kernel memory outside any address space and the workdir's cap
# that a judged program never needs. Sockets included: the buffers of unix socketpairs with SO_SNDBUF
# raised held 1,535 MiB for 5 processes of a run limited to 448 MiB (the network namespace has no
# network anyway); and F_SETPIPE_SZ, which grows a pipe past its 64 KiB (pipes share one quota per uid).
SECCOMP_DENIED = ("memfd_create", "shmget", "msgget", "socket", "socketpair")
F_SETPIPE_SZ = 1031  # fcntl's command, refused by the seccomp bound

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 1 << 14, 1 << 18
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID = 0x1, 0x2
AT_FDCWD, AT_RECURSIVE, MNT_DETACH = -100, 0x8000, 2
OPEN_TREE_CLONE, MOVE_MOUNT_F_EMPTY_PATH = 1, 0x4
SYS_OPEN_TREE, SYS_MOVE_MOUNT, SYS_MOUNT_SETATTR = 428, 429, 442  # the same numbers on every architecture
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
# What the fresh root holds besides the interpreter's own directories (symlinks stay symlinks).
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
NEW_ROOT_MOUNT = "/tmp"  # where, in the launcher's private mount namespace, the fresh root is assembled
PLAIN_USER = ("the namespace sandbox needs a root evaluator: under a plain user the program would run with "
              "the evaluator's own uid and groups (its files, its sockets); run the evaluator as root "
              "(a container or VM) or set eval.sandbox=none (Sandbox(isolation='none')) to run model-written "
              "code without isolation")
NO_MEMORY_BOUND = ("nothing can bound a run's memfd and shared memory here ({}): run the evaluator where a "
                   "memory cgroup can be made, or install pyseccomp (pip) and libseccomp")
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
WORKDIR = "/tmp"  # inside the sandbox: a fresh tmpfs
LAUNCH_SLACK_S = 5.0  # the caller's own deadline beyond the wall limit (namespace setup, teardown)
RUN_MEMORY_SLACK_MB = 128  # a run's memory beyond its program's address space: harness, init, launcher
CGROUP_PREFIX = "rlve-sandbox-"  # a run's memory cgroup: <evaluator's cgroup>/rlve-sandbox-<server>-<launcher>


class SandboxUnavailable(RuntimeError):
    """The requested isolation cannot be set up here (the message names the failing step)."""


@dataclass(frozen=True)
class Limits:
    """Per-run limits; cpu, memory, file size and open files apply to each process of the run."""

    cpu_s: float = 10.0  # RLIMIT_CPU: SIGXCPU past it
    wall_s: float = 20.0  # the whole run, from the program's start
    memory_mb: int = 2048  # RLIMIT_AS per process
    processes: int = 32  # tasks (processes and threads) alive at once in the run
    output_bytes: int = 1 << 24  # stdout cap (stderr: a 64 KiB tail is kept, also capped at this size)
    disk_mb: int = 64  # the tmpfs working directory's size; also RLIMIT_FSIZE
    inodes: int = 4096  # files, directories and links the working directory can hold (tmpfs nr_inodes)
    open_files: int = 256  # RLIMIT_NOFILE
    stall_s: float = 0.0  # once stdout has begun, the run ends ("stalled") when it is silent this long; 0 = never

    @property
    def run_memory_mb(self) -> int:
        """The run's memory cgroup limit: every page the run holds (processes, files in its working
        directory, memfd and shared memory, kernel objects), beyond one process's address space."""
        return self.memory_mb + self.disk_mb + RUN_MEMORY_SLACK_MB


@dataclass
class Result:
    """status: "ok" (exit 0), "exit" (non-zero code), "signal", "timeout", "stalled" (stdout silent past
    Limits.stall_s), "output_limit" or "error"."""

    status: str
    exit_code: int | None = None
    signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    wall_s: float = 0.0
    cpu_s: float = 0.0
    detail: str = ""

    @property
    def verdict(self) -> str:
        """A short human verdict: ok, exit 1, SIGKILL, cpu time limit, wall time limit, stdout stalled, output limit."""
        if self.status == "signal":
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return {"SIGXCPU": "cpu time limit", "SIGXFSZ": "file size limit"}.get(name, name)
        if self.status == "exit":
            return f"exit {self.exit_code}"
        return {"timeout": "wall time limit", "stalled": "stdout stalled", "output_limit": "output limit"}.get(
            self.status, self.status)


def minimal_env() -> dict[str, str]:
    """What a program sees: no variable of the evaluator's environment is passed on."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": WORKDIR, "TMPDIR": WORKDIR, "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@dataclass
class Sandbox:
    """`run(argv, files)` executes argv (argv[0] an absolute path) with `files` written into its fresh
    working directory; thread-safe, so a thread pool can keep several runs in flight."""

    isolation: str = "namespaces"
    limits: Limits = field(default_factory=Limits)
    uid: int = 65534  # the unprivileged uid (and gid) programs run as when the evaluator is root
    # What bounds the run's memory beyond each process's address space (memfd, shared memory, kernel
    # objects): "cgroup" (a memory cgroup per run), "seccomp" (SECCOMP_DENIED and F_SETPIPE_SZ refused)
    # or "auto" (a cgroup where one can be made here, else the seccomp filter).
    memory_bound: str = "auto"

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"sandbox isolation must be one of {ISOLATIONS}, got {self.isolation!r}")
        if self.memory_bound not in MEMORY_BOUNDS:
            raise ValueError(f"sandbox memory_bound must be one of {MEMORY_BOUNDS}, got {self.memory_bound!r}")
        if self.isolation == "namespaces":
            self.check()

    def check(self) -> None:
        """Run a probe once per (isolation, uid) in this process; raise SandboxUnavailable if it fails."""
        key = (self.isolation, self.uid, self.memory_bound)
        if key not in _PROBED:
            _PROBED[key] = _probe(self)
        if _PROBED[key]:
            raise SandboxUnavailable(_PROBED[key])

    def run(self, argv: list[str], files: dict[str, str | bytes] | None = None, stdin: bytes = b"") -> Result:
        files = {name: data.encode() if isinstance(data, str) else data for name, data in (files or {}).items()}
        for name in files:
            if "/" in name or name in ("", ".", ".."):
                raise ValueError(f"sandbox file names must be plain names, got {name!r}")
        if self.isolation == "none":
            return _run_bare(argv, files, stdin, self.limits)
        return _run_isolated(argv, files, stdin, self.limits, self.uid, self.memory_bound)


_PROBED: dict[tuple[str, int, str], str] = {}


def _probe(box: Sandbox) -> str:
    """'' when a trivial program runs isolated (no network interface but loopback); else the reason."""
    if os.geteuid() != 0:
        return PLAIN_USER
    if platform.machine() not in SYS_PIVOT_ROOT:
        return f"the namespace sandbox supports {sorted(SYS_PIVOT_ROOT)}, not {platform.machine()}"
    # The interfaces from /proc/net/dev (two header lines), not a socket: the seccomp bound refuses sockets.
    code = "import os; print(len(open('/proc/net/dev').readlines()) - 2, os.getcwd())"
    result = _run_isolated([sys.executable, "-I", "-S", "-c", code], {}, b"", Limits(wall_s=20.0), box.uid,
                           box.memory_bound)
    if result.status != "ok":
        reason = result.detail or result.stderr.decode(errors="replace")[-300:] or result.verdict
        reason = " ".join(reason.split())  # one line
        return (f"no sandbox isolation available here ({reason}); set eval.sandbox=none (Sandbox(isolation='none')) "
                "to run model-written code without isolation")
    if result.stdout.split() != [b"1", WORKDIR.encode()]:
        return f"sandbox probe saw an unexpected environment: {result.stdout[:200]!r}"
    return ""


# ---------------------------------------------------------------------------
# The caller's side


def _run_bare(argv: list[str], files: dict[str, bytes], stdin: bytes, limits: Limits) -> Result:
    """No isolation (explicit opt-out): a fresh process in a temporary directory."""
    workdir = tempfile.mkdtemp(prefix="rlve_bare_")
    try:
        for name, data in files.items():
            with open(os.path.join(workdir, name), "wb") as f:
                f.write(data)
        env = {**minimal_env(), "HOME": workdir, "TMPDIR": workdir}
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=workdir, env=env, start_new_session=True)
        writer = os.dup(proc.stdin.fileno())  # _collect closes it once stdin is written
        proc.stdin.close()
        out, err, _, verdict, wall = _collect(writer, stdin, proc.stdout.fileno(), proc.stderr.fileno(), None,
                                              limits, limits.wall_s,
                                              lambda: _kill(lambda: os.killpg(proc.pid, signal.SIGKILL)))
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    code = proc.returncode
    if verdict:
        return Result(verdict, stdout=out, stderr=err, wall_s=wall)
    if code < 0:
        return Result("signal", signal=-code, stdout=out, stderr=err, wall_s=wall)
    return Result("ok" if code == 0 else "exit", exit_code=code, stdout=out, stderr=err, wall_s=wall)


def _run_isolated(argv: list[str], files: dict[str, bytes], stdin: bytes, limits: Limits, uid: int,
                  memory_bound: str) -> Result:
    """Hand the run to the fork server; its child builds the namespaces and reports on a status pipe."""
    spec = json.dumps({"argv": argv, "files": {n: d.decode("latin-1") for n, d in files.items()},
                       "stdin": stdin.decode("latin-1"), "limits": asdict(limits), "uid": uid,
                       "memory_bound": memory_bound,
                       "expose": _interpreter_paths()}).encode()
    pipes = [os.pipe() for _ in range(4)]  # spec, stdout, stderr, status
    (spec_r, spec_w), (out_r, out_w), (err_r, err_w), (status_r, status_w) = pipes
    try:
        pidfd = _SERVER.start([spec_r, out_w, err_w, status_w])
    except OSError as e:
        for fd in (fd for pair in pipes for fd in pair):
            os.close(fd)
        return Result("error", detail=f"sandbox fork server: {e}")
    for fd in (spec_r, out_w, err_w, status_w):
        os.close(fd)
    try:
        out, err, status, verdict, wall = _collect(
            spec_w, spec, out_r, err_r, status_r, limits, limits.wall_s + LAUNCH_SLACK_S,
            lambda: _kill(lambda: signal.pidfd_send_signal(pidfd, signal.SIGKILL)))
    finally:
        for fd in (out_r, err_r, status_r, pidfd):
            os.close(fd)
    try:
        report = json.loads(status) if status else {}
    except ValueError:
        report = {}
    if verdict in ("output_limit", "stalled") or (not verdict and report.get("status") is None):
        detail = report.get("error", "") or ("" if verdict else "the sandbox launcher exited without a status")
        return Result(verdict or "error", stdout=out, stderr=err, wall_s=wall, detail=detail)
    if verdict == "timeout":  # the launcher's own timer fires first; this is the backstop
        return Result("timeout", stdout=out, stderr=err, wall_s=wall, detail="launcher deadline")
    return Result(report["status"], report.get("exit_code"), report.get("signal"), out, err,
                  report.get("wall_s", wall), report.get("cpu_s", 0.0), report.get("error", ""))


def _interpreter_paths() -> list[str]:
    """The directories the program's Python needs to read: its prefixes and every directory on the way
    from sys.executable to the binary (a venv's bin, /etc/alternatives, ...), with their real paths."""
    paths, link, seen = set(), os.path.abspath(sys.executable), set()
    while link not in seen:
        seen.add(link)
        paths.add(os.path.dirname(link))
        if not os.path.islink(link):
            break
        link = os.path.normpath(os.path.join(os.path.dirname(link), os.readlink(link)))
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
        paths |= {os.path.abspath(prefix), os.path.realpath(prefix)}
    return sorted(paths | {os.path.realpath(p) for p in paths})


def _kill(send) -> None:
    try:
        send()
    except ProcessLookupError:
        pass


def _collect(writer: int | None, data: bytes, out_fd: int, err_fd: int, status_fd: int | None, limits: Limits,
             deadline_s: float, kill) -> tuple[bytes, bytes, bytes, str, float]:
    """Feed `data` to `writer` (then close it); read stdout, stderr (a 64 KiB tail) and the status until
    every writer is gone, the deadline passes, stdout stalls (limits.stall_s) or stdout/stderr pass the
    cap (then `kill()`).
    Returns (stdout, stderr, status, "" | "timeout" | "stalled" | "output_limit", seconds)."""
    start = time.monotonic()
    last_output = None  # when stdout last grew (the stall limit runs from its first byte)
    buffers = {out_fd: bytearray(), err_fd: bytearray()}
    if status_fd is not None:
        buffers[status_fd] = bytearray()
    readers = dict(buffers)
    pending = memoryview(data)
    os.set_blocking(writer, False)
    verdict = ""
    while readers or writer is not None:
        if writer is not None and not pending:
            os.close(writer)
            writer = None
            continue
        now = time.monotonic()
        remaining = deadline_s - (now - start)
        if limits.stall_s > 0 and last_output is not None:
            remaining = min(remaining, limits.stall_s - (now - last_output))
        if remaining <= 0:
            verdict = "timeout" if now - start >= deadline_s else "stalled"
            break
        readable, writable, _ = select.select(list(readers), [writer] if writer is not None else [], [], remaining)
        if writable:
            try:
                pending = pending[os.write(writer, pending[:1 << 16]):]
            except BrokenPipeError:
                pending = pending[:0]
        for fd in readable:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                del readers[fd]
                continue
            buffer = buffers[fd]
            buffer += chunk
            if fd == out_fd:
                last_output = time.monotonic()
            if fd == err_fd and len(buffer) > 1 << 16:
                del buffer[:-(1 << 16)]  # keep the tail: the traceback
            if fd != status_fd and len(buffer) > limits.output_bytes:
                verdict = "output_limit"
        if verdict:
            break
    if writer is not None:
        os.close(writer)
    if verdict:
        kill()
    status = bytes(buffers[status_fd]) if status_fd is not None else b""
    return (bytes(buffers[out_fd][:limits.output_bytes]), bytes(buffers[err_fd]), status, verdict,
            time.monotonic() - start)


def _pyseccomp_path() -> str:
    """Where the evaluator's pyseccomp lives ('' if not installed): the fork server runs without site-packages."""
    spec = importlib.util.find_spec("pyseccomp")
    return spec.origin if spec is not None and spec.origin else ""


def _seccomp_filter(path: str):
    """The seccomp bound, built once in the fork server and loaded by each program (inherited by fork):
    the calls of SECCOMP_DENIED and fcntl(F_SETPIPE_SZ) fail with EPERM. None if pyseccomp (at `path`)
    or libseccomp does not load."""
    if not path:
        return None
    try:
        spec = importlib.util.spec_from_file_location("pyseccomp", path)
        seccomp = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(seccomp)
        syscall_filter = seccomp.SyscallFilter(seccomp.ALLOW)
        for name in SECCOMP_DENIED:
            syscall_filter.add_rule(seccomp.ERRNO(errno.EPERM), name)
        syscall_filter.add_rule(seccomp.ERRNO(errno.EPERM), "fcntl", seccomp.Arg(1, seccomp.EQ, F_SETPIPE_SZ))
        return syscall_filter
    except Exception:  # noqa: BLE001 - any failure to load means "no seccomp bound here"
        return None


_SECCOMP = None  # the fork server's prebuilt seccomp filter, when pyseccomp and libseccomp load


class _ForkServer:
    """One single-threaded launcher process (this file with --serve) per evaluator process: it forks a
    child per run, so a run costs a fork instead of an interpreter start. Started on first use,
    restarted if it died; it exits when the evaluator does (its socket closes)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen | None = None
        self._owner = -1

    def start(self, fds: list[int]) -> int:
        """Start one run with these fds (spec read end, stdout, stderr, status write ends); its pidfd."""
        with self._lock:
            for attempt in range(2):
                if self._sock is None or self._owner != os.getpid() or self._proc.poll() is not None:
                    self._spawn()
                try:
                    socket.send_fds(self._sock, [b"r"], fds)
                    reply, pidfds, _, _ = socket.recv_fds(self._sock, 16, 1)
                    if reply == b"p" and pidfds:
                        return pidfds[0]
                    raise OSError(f"fork server replied {reply!r}")
                except OSError:
                    self._close()
                    if attempt:
                        raise
        raise AssertionError("unreachable")

    def _spawn(self) -> None:
        self._close()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__), "--serve", str(theirs.fileno()),
                 _pyseccomp_path()],
                stdin=subprocess.DEVNULL, cwd="/", env=minimal_env(), pass_fds=(theirs.fileno(),),
                start_new_session=True)
        finally:
            theirs.close()
        self._sock, self._owner = mine, os.getpid()

    def _close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None and self._owner == os.getpid():
            self._proc.kill()
            self._proc.wait()
        self._proc = None


class _ServerPool:
    """Fork servers handed out one per run in flight: each forks only its own runs, so runs started
    from several threads do not queue behind one server (two servers on 2 cores: ~1.4x the runs/s)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[_ForkServer] = []

    def start(self, fds: list[int]) -> int:
        with self._lock:
            server = self._idle.pop() if self._idle else _ForkServer()
        try:
            return server.start(fds)
        finally:
            with self._lock:
                self._idle.append(server)


_SERVER = _ServerPool()


# ---------------------------------------------------------------------------
# The launcher (this file run as a script): namespaces, mounts, limits, then the program


_libc = None


def _sys(name: str, *args) -> int:
    """Call a libc function; raise OSError naming it on failure."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    result = getattr(_libc, name)(*args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}{args[:2] if name != 'syscall' else args[:1]}: {os.strerror(err)}")
    return result


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: s.encode() if s is not None else None  # noqa: E731
    _sys("mount", enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data))


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _setattr(path: str, flags: int, recursive: bool = True) -> None:
    """Set mount attributes on the mount at `path` (and every mount below it): mount_setattr, Linux 5.12+."""
    attr = _MountAttr(flags, 0, 0, 0)
    _sys("syscall", ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD), path.encode(),
         ctypes.c_uint(AT_RECURSIVE if recursive else 0), ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)))


def _clone_tree(path: str) -> int:
    """A detached copy of the mount tree at `path` (a directory or a file): open_tree, Linux 5.2+."""
    return _sys("syscall", ctypes.c_long(SYS_OPEN_TREE), ctypes.c_int(AT_FDCWD), path.encode(),
                ctypes.c_uint(OPEN_TREE_CLONE | AT_RECURSIVE))


def _attach_tree(tree: int, target: str) -> None:
    _sys("syscall", ctypes.c_long(SYS_MOVE_MOUNT), ctypes.c_int(tree), b"", ctypes.c_int(AT_FDCWD), target.encode(),
         ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH))
    os.close(tree)


def _outermost(paths: list[str]) -> list[str]:
    """The paths not below another one of them (or below a system directory)."""
    inside = lambda p, q: p == q or p.startswith(q.rstrip("/") + "/")  # noqa: E731
    tops = ["/" + name for name in SYSTEM_DIRS]
    paths = sorted({os.path.normpath(p) for p in paths
                    if p != "/" and os.path.isdir(p) and not any(inside(p, t) for t in tops)})
    return [p for i, p in enumerate(paths) if not any(inside(p, q) for q in paths[:i])]


def memory_cgroup_parent() -> str:
    """The directory where runs' memory cgroups are made ('' if none): this process's own memory cgroup
    under cgroup v1; under v2 its own cgroup or that one's parent, whichever already hands the memory
    controller to its children (a v2 cgroup holding processes cannot), if root may write there."""
    try:
        with open("/proc/self/cgroup") as f:
            own = [line.rstrip("\n").split(":", 2) for line in f]
        with open("/proc/self/mountinfo") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return ""
    for _, controllers, path in own:
        v2 = controllers == ""
        if not v2 and "memory" not in controllers.split(","):
            continue
        for fields in mounts:
            dash = fields.index("-")
            fstype, options = fields[dash + 1], fields[dash + 3].split(",")
            if not ((fstype == "cgroup2") if v2 else (fstype == "cgroup" and "memory" in options)):
                continue
            mount_root, where = fields[3], fields[4]
            if mount_root != "/" and path != mount_root and not path.startswith(mount_root + "/"):
                continue
            directory = os.path.join(where, path[len(mount_root):].lstrip("/") if mount_root != "/"
                                     else path.lstrip("/"))
            for candidate in ([directory, os.path.dirname(directory)] if v2 else [directory]):
                if (not v2 or _hands_down_memory(candidate)) and os.access(candidate, os.W_OK):
                    return candidate
    return ""


def _hands_down_memory(directory: str) -> bool:
    try:
        with open(os.path.join(directory, "cgroup.subtree_control")) as f:
            return "memory" in f.read().split()
    except OSError:
        return False


def _join_memory_cgroup(parent: str, limits: dict) -> None:
    """Move this launcher (and so the whole run) into a fresh memory cgroup capped at the run's memory."""
    path = os.path.join(parent, f"{CGROUP_PREFIX}{os.getppid()}-{os.getpid()}")
    os.mkdir(path)
    cap = str(Limits(**limits).run_memory_mb << 20)
    v1 = os.path.exists(os.path.join(path, "memory.limit_in_bytes"))
    settings = ([("memory.limit_in_bytes", cap), ("memory.memsw.limit_in_bytes", cap)] if v1 else
                [("memory.max", cap), ("memory.swap.max", "0")])
    for name, value in settings + [("cgroup.procs", str(os.getpid()))]:
        if name.startswith("cgroup") or os.path.exists(os.path.join(path, name)):
            with open(os.path.join(path, name), "w") as f:
                f.write(value)


def _build_root(spec: dict, uid: int) -> None:
    """Pivot into a fresh root (needs real root, in a private mount namespace): a small read-only tmpfs
    holding clones of the system directories, of the interpreter's directories and of a few device
    files, a fresh /proc (so that the run's own /proc may be mounted later), and the run's working
    directory, a tmpfs with a size and an inode cap. Nothing else of the host's tree stays reachable."""
    limits = spec["limits"]
    links = {name: os.readlink("/" + name) for name in SYSTEM_DIRS if os.path.islink("/" + name)}
    system = [name for name in SYSTEM_DIRS if name not in links and os.path.isdir("/" + name)]
    interpreter = _outermost(spec["expose"])
    trees = {**{"/" + name: _clone_tree("/" + name) for name in system},
             **{path: _clone_tree(path) for path in interpreter},
             **{path: _clone_tree(path) for path in SYSTEM_FILES if os.path.exists(path)}}
    new_root = NEW_ROOT_MOUNT
    _mount("tmpfs", new_root, "tmpfs", MS_NOSUID | MS_NODEV, "size=256k,nr_inodes=512,mode=0755")
    for name, target in links.items():
        os.symlink(target, os.path.join(new_root, name))
    for path in ("/proc", "/dev", WORKDIR):
        os.makedirs(new_root + path, mode=0o755, exist_ok=True)
    in_workdir = {p: t for p, t in trees.items() if p == WORKDIR or p.startswith(WORKDIR + "/")}
    for path, tree in trees.items():
        if path in in_workdir:
            continue
        target = new_root + path
        if os.path.isdir(path):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            open(target, "wb").close()
        _attach_tree(tree, target)
    _setattr(new_root, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID)
    # Writable: the launcher writes its user namespace's maps there; the run's own /proc covers it.
    _mount("proc", new_root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    workdir = new_root + WORKDIR
    _mount("tmpfs", workdir, "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={limits['disk_mb']}m,nr_inodes={limits['inodes']},mode=0700,uid={uid},gid={uid}")
    for path, tree in in_workdir.items():  # an interpreter in a venv under /tmp: read-only, over the workdir
        os.makedirs(new_root + path, mode=0o755, exist_ok=True)
        _attach_tree(tree, new_root + path)
        _setattr(new_root + path, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID)
    for name, data in [*spec["files"].items(), (".stdin", spec["stdin"])]:
        path = os.path.join(workdir, name)
        with open(path, "wb") as f:
            f.write(data.encode("latin-1"))
        os.chown(path, uid, uid)
    os.chdir(new_root)
    _sys("syscall", ctypes.c_long(SYS_PIVOT_ROOT[platform.machine()]), b".", b".")  # the old root lies under "."
    _sys("umount2", b".", ctypes.c_int(MNT_DETACH))
    os.chdir("/")


def _enter_namespaces(spec: dict) -> None:
    """The fresh root and the namespaces; afterwards this process is unprivileged outside them."""
    if os.geteuid() != 0:
        raise OSError(errno.EPERM, PLAIN_USER)
    uid = gid = spec["uid"]
    if spec["memory_bound"] == "cgroup":
        _join_memory_cgroup(spec["cgroup"], spec["limits"])
    _sys("unshare", ctypes.c_int(CLONE_NEWNS))
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing below propagates back to the host
    _build_root(spec, uid)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    # A uid change makes the process non-dumpable, which leaves /proc/self/*_map owned by root.
    _sys("prctl", ctypes.c_int(PR_SET_DUMPABLE), ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
         ctypes.c_ulong(0))
    # The RLIMIT_NPROC in force here also caps the new user namespace as a whole; it stays the caller's.
    _sys("unshare", ctypes.c_int(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC
                                 | CLONE_NEWUTS))
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _set_limits(limits: dict) -> None:
    cpu = max(1, int(limits["cpu_s"] + 0.999))
    file_bytes = limits["disk_mb"] << 20
    for kind, value in ((resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_CORE, (0, 0)),
                        (resource.RLIMIT_AS, (limits["memory_mb"] << 20,) * 2),
                        (resource.RLIMIT_FSIZE, (file_bytes, file_bytes)),
                        (resource.RLIMIT_NOFILE, (limits["open_files"],) * 2),
                        (resource.RLIMIT_NPROC, (limits["processes"],) * 2),
                        (resource.RLIMIT_MSGQUEUE, (0, 0))):  # no POSIX message queues
        resource.setrlimit(kind, value)


def _init(spec: dict, alive_r: int, result_w: int) -> None:
    """PID 1 of the run: mount /proc, start the program, reap everything, report the program's status."""
    try:
        _sys("prctl", ctypes.c_int(PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0),
             ctypes.c_ulong(0), ctypes.c_ulong(0))
        if select.select([alive_r], [], [], 0)[0]:  # the launcher died before PDEATHSIG was armed
            os._exit(1)
        outer_proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY)  # writable, unlike the run's own /proc
        _mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        child = os.fork()
        if child == 0:
            try:
                os.close(alive_r)
                os.close(result_w)
                # The OOM killer's first choice, before the launcher and init (a memory cgroup's limit).
                with open(os.open("self/oom_score_adj", os.O_WRONLY, dir_fd=outer_proc), "w") as f:
                    f.write("1000")
                _set_limits(spec["limits"])
                _sys("prctl", ctypes.c_int(PR_SET_NO_NEW_PRIVS), ctypes.c_ulong(1), ctypes.c_ulong(0),
                     ctypes.c_ulong(0), ctypes.c_ulong(0))
                if spec["memory_bound"] == "seccomp":
                    _SECCOMP.load()
                os.chdir(WORKDIR)
                fd = os.open(os.path.join(WORKDIR, ".stdin"), os.O_RDONLY)
                os.dup2(fd, 0)
                os.closerange(3, 1 << 16)
                env = minimal_env()
                os.execve(spec["argv"][0], spec["argv"], env)
            except BaseException as e:  # noqa: BLE001 - report anything, never return into init's code
                os.write(2, f"sandbox: cannot start the program: {e}\n".encode())
            os._exit(127)
        os.close(outer_proc)
        _detach_output()
        while True:
            pid, status, usage = os.wait4(-1, 0)
            if pid == child:
                break
        os.write(result_w, json.dumps({"wait_status": status, "cpu_s": usage.ru_utime + usage.ru_stime}).encode())
        os._exit(0)
    except BaseException as e:  # noqa: BLE001
        os.write(result_w, json.dumps({"error": f"sandbox init: {e}"}).encode())
        os._exit(1)


def _detach_output() -> None:
    """Let go of the program's stdout/stderr, so the caller sees their end when the program's processes end."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    os.close(devnull)


def _memory_bound(wanted: str, cgroup: str) -> str:
    """The bound a run gets ("cgroup" or "seccomp"); OSError naming what is missing."""
    missing = {"cgroup": "" if cgroup else "no writable memory cgroup",
               "seccomp": "" if _SECCOMP is not None else "pyseccomp or libseccomp does not load"}
    for bound in (("cgroup", "seccomp") if wanted == "auto" else (wanted,)):
        if not missing[bound]:
            return bound
    raise OSError(errno.EPERM, NO_MEMORY_BOUND.format("; ".join(m for b, m in missing.items()
                                                                if wanted in ("auto", b))))


def _run_one(spec_fd: int, status_fd: int, cgroup: str) -> None:
    """One run, in a child of the fork server (stdout/stderr already the program's pipes)."""
    with os.fdopen(spec_fd, "rb") as f:
        spec = {**json.loads(f.read()), "cgroup": cgroup}
    def report(**fields) -> None:  # closing the pipe at once lets the caller go on during the teardown
        os.write(status_fd, json.dumps(fields).encode())
        os.close(status_fd)

    try:
        spec["memory_bound"] = _memory_bound(spec["memory_bound"], cgroup)
        _enter_namespaces(spec)
    except OSError as e:
        report(error=f"namespace setup failed: {e}")
        return
    alive_r, alive_w = os.pipe()
    result_r, result_w = os.pipe()
    start = time.monotonic()
    init = os.fork()
    if init == 0:
        os.close(alive_w)
        os.close(result_r)
        os.close(status_fd)
        _init(spec, alive_r, result_w)
    os.close(alive_r)
    os.close(result_w)
    _detach_output()
    pidfd = os.pidfd_open(init)
    timed_out = not select.select([pidfd], [], [], spec["limits"]["wall_s"])[0]
    if timed_out:
        os.kill(init, signal.SIGKILL)
    _, _, usage = os.wait4(init, 0)
    wall = time.monotonic() - start
    data = os.read(result_r, 1 << 16)
    info = json.loads(data) if data else {}
    if timed_out:
        report(status="timeout", wall_s=wall, cpu_s=usage.ru_utime + usage.ru_stime)
    elif "wait_status" not in info:
        report(error=info.get("error", "sandbox init died"), wall_s=wall)
    else:
        status = info["wait_status"]
        if os.WIFSIGNALED(status):
            report(status="signal", signal=os.WTERMSIG(status), wall_s=wall, cpu_s=info["cpu_s"])
        else:
            code = os.WEXITSTATUS(status)
            report(status="ok" if code == 0 else "exit", exit_code=code, wall_s=wall, cpu_s=info["cpu_s"])


def _serve(sock_fd: int) -> None:
    """The fork server's loop: per request (4 fds), fork a run and answer with its pidfd; remove the
    memory cgroups of finished runs."""
    sock = socket.socket(fileno=sock_fd)  # no PDEATHSIG: the thread that started it may end; EOF ends it
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # finished runs are reaped by the kernel: no zombies
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    cgroup = memory_cgroup_parent() if os.geteuid() == 0 else ""
    if cgroup:
        _remove_orphan_cgroups(cgroup)
    runs: dict[int, str] = {}  # launcher pidfd -> its memory cgroup
    try:
        while True:
            ready = select.select([sock, *runs], [], [])[0]
            for pidfd in [fd for fd in ready if fd in runs]:
                _remove_cgroup(runs.pop(pidfd))
                os.close(pidfd)
            if sock not in ready:
                continue
            try:
                message, fds, _, _ = socket.recv_fds(sock, 16, 4)
            except OSError:
                return
            if not message:  # the evaluator is gone
                return
            if len(fds) != 4:
                for fd in fds:
                    os.close(fd)
                continue
            spec_fd, out_fd, err_fd, status_fd = fds
            pid = os.fork()
            if pid == 0:
                try:
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # this run waits for its init
                    sock.close()
                    os.dup2(out_fd, 1)
                    os.dup2(err_fd, 2)
                    for fd in (out_fd, err_fd, devnull, *runs):
                        os.close(fd)
                    _run_one(spec_fd, status_fd, cgroup)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            socket.send_fds(sock, [b"p"], [pidfd])
            if cgroup:
                runs[pidfd] = os.path.join(cgroup, f"{CGROUP_PREFIX}{os.getpid()}-{pid}")
            else:
                os.close(pidfd)
    finally:
        for pidfd, path in runs.items():  # runs still going when the evaluator left: wait a moment for them
            if select.select([pidfd], [], [], 2.0)[0]:
                _remove_cgroup(path)


def _remove_orphan_cgroups(parent: str) -> None:
    """Empty run cgroups left by fork servers that were killed (named rlve-sandbox-<server pid>-<launcher>)."""
    for name in os.listdir(parent):
        if name.startswith(CGROUP_PREFIX):
            try:
                os.kill(int(name[len(CGROUP_PREFIX):].split("-")[0]), 0)
            except ProcessLookupError:
                _remove_cgroup(os.path.join(parent, name))
            except (ValueError, OSError):
                continue


def _remove_cgroup(path: str) -> None:
    for _ in range(50):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:  # the launcher failed before making it
            return
        except OSError:  # EBUSY: its last task is still leaving
            time.sleep(0.002)


if __name__ == "__main__" and sys.argv[1:2] == ["--serve"]:
    _SECCOMP = _seccomp_filter(sys.argv[3])
    _serve(int(sys.argv[2]))
