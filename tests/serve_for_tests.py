"""A live gym service on 127.0.0.1 for the service tests (a subprocess: `python -m rlve_jax.serve`)."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(state_dir, collection: str = "C4", *flags: str, token: str | None = None,
                 port: int | None = None) -> tuple[subprocess.Popen, str]:
    """Start the service in its own process group and wait until /health answers; returns (process, url)."""
    port = port or free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("RLVE_SERVE_TOKEN", None)
    if token:
        env["RLVE_SERVE_TOKEN"] = token
    process = subprocess.Popen(
        [sys.executable, "-m", "rlve_jax.serve", "--collection", collection, "--state", str(state_dir),
         "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--log-level", "warning", *flags],
        cwd=REPO, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the service exited with {process.returncode}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url
        time.sleep(0.3)
    stop_server(process)
    raise RuntimeError("the service did not answer /health within 120 s")


def kill_group(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Signal the service and everything it started (its pool workers)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)
    process.wait(timeout=30)


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    kill_group(process)


@contextlib.contextmanager
def live_server(state_dir, collection: str = "C4", *flags: str, token: str | None = None):
    process, url = start_server(state_dir, collection, *flags, token=token)
    try:
        yield url
    finally:
        stop_server(process)


def answer(problem: dict, correct: bool) -> str:
    """A boxed answer to a drawn problem: the environment's reference, or a perturbed one."""
    from rlve_jax.gym import registry

    env = registry.make(problem["env"])
    generated = env.generate(problem["difficulty"], problem["seed"])
    text = env.reference(generated)
    if not correct:
        text = env.perturb(generated, text)
    return f"Reasoning... \\boxed{{{text}}}"
