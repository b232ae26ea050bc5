"""Load benchmark of the gym service: 16 concurrent clients verifying over HTTP vs the in-process pool.

    python experiments/bench_serve.py                                   # C16, 2 pool workers, 16 clients
    python experiments/bench_serve.py --collection C256 --workers 8 --clients 16 --items 8 --requests 40

Starts `python -m rlve_jax.serve` on 127.0.0.1 (a fresh state directory, sync=full), draws a set of problems,
and answers them with the environments' reference answers (and perturbed ones, 1 in 4). The baseline, measured
in the same run with the same number of pool workers, is EnvPool.verify in this process on the same items in
batches of clients x items (what one step of all clients hands the pool). Then `--clients` threads each send
`--requests` verify requests of `--items` responses (each with its own request id: one scheduler update and one
SQLite commit per request), and again with one response per request (OpenEnv-style steps); the last row is the
HTTP round trip alone (GET /health), the ceiling the clients and the server reach on this machine without any
verification. One table: verifies/s, per-request latency p50/p99, and the ratio of verifies/s to the in-process pool.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlve_jax.gym import registry  # noqa: E402
from rlve_jax.gym.env import BOXED  # noqa: E402
from rlve_jax.gym.pool import EnvPool  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def table(rows: list[tuple], header: tuple) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in (header, *rows):
        print("  ".join(str(x).rjust(w) for x, w in zip(row, widths)))


def start_service(state: str, args: argparse.Namespace) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "rlve_jax.serve", "--collection", args.collection, "--state",
                                state, "--port", str(port), "--workers", str(args.workers), "--log-level", "warning"],
                               cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError("the service did not start")


def responses_for(problems: list[dict], rng: random.Random) -> list[str]:
    out = []
    for p in problems:
        env = registry.make(p["env"])
        problem = env.generate(p["difficulty"], p["seed"])
        text = env.reference(problem) or ""
        if rng.random() < 0.25:
            text = env.perturb(problem, text)
        out.append(f"Let me think. \\boxed{{{text}}}")
    return out


def load(url: str, work: list[tuple[int, str]], clients: int, requests: int, items: int) -> tuple[float, list]:
    """`clients` threads, each `requests` verify requests of `items` items; (wall seconds, request latencies)."""
    latencies: list[float] = []
    lock = threading.Lock()

    def client(index: int) -> None:
        http = httpx.Client(base_url=url, timeout=300)
        rng = random.Random(index)
        for k in range(requests):
            chosen = rng.sample(work, items)
            body = {"request_id": f"{items}-{index}-{k}",
                    "items": [{"problem_id": i, "response": r} for i, r in chosen]}
            start = time.perf_counter()
            response = http.post("/verify", json=body)
            response.raise_for_status()
            with lock:
                latencies.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start, latencies


def health_load(url: str, clients: int, requests: int) -> tuple[float, list]:
    """The HTTP round trip alone (no pool, no database): `clients` threads, `requests` GET /health each."""
    latencies: list[float] = []

    def client() -> None:
        http = httpx.Client(base_url=url, timeout=300)
        for _ in range(requests):
            start = time.perf_counter()
            http.get("/health").raise_for_status()
            latencies.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--collection", default="C16")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=20, help="verify requests per client")
    parser.add_argument("--items", type=int, default=8, help="responses per verify request")
    parser.add_argument("--problems", type=int, default=256)
    args = parser.parse_args()
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as state:
        process, url = start_service(state, args)
        try:
            drawn = httpx.post(f"{url}/draw", json={"n": args.problems}, timeout=600).json()["problems"]
            work = list(zip([p["problem_id"] for p in drawn], responses_for(drawn, rng)))
            problems = {p["problem_id"]: registry.make(p["env"]).generate(p["difficulty"], p["seed"]) for p in drawn}
            total = args.clients * args.requests * args.items
            items = [rng.choice(work) for _ in range(total)]
            batch = args.clients * args.items
            rows = []
            # Baseline: the in-process pool (same worker count), batches of clients x items.
            with EnvPool(args.workers, 10.0, 4096) as pool:
                pool.verify([problems[i] for i, _ in items[:batch]], [r for _, r in items[:batch]], BOXED)  # warm
                seconds, start_all = [], time.perf_counter()
                for lo in range(0, total, batch):
                    chunk = items[lo:lo + batch]
                    start = time.perf_counter()
                    pool.verify([problems[i] for i, _ in chunk], [r for _, r in chunk], BOXED)
                    seconds.append(time.perf_counter() - start)
                pool_rate = total / (time.perf_counter() - start_all)
            rows.append((f"in-process EnvPool.verify, batches of {batch}", f"{pool_rate:.0f}",
                         f"{1e3 * statistics.median(seconds):.1f}", f"{1e3 * percentile(seconds, 0.99):.1f}", "1.00"))
            load(url, work, args.clients, 2, args.items)  # warm-up
            for per_request in (args.items, 1):
                requests = args.requests * args.items // per_request
                wall, latencies = load(url, work, args.clients, requests, per_request)
                rate = args.clients * requests * per_request / wall
                rows.append((f"service, {args.clients} clients x {per_request} per request", f"{rate:.0f}",
                             f"{1e3 * statistics.median(latencies):.1f}", f"{1e3 * percentile(latencies, 0.99):.1f}",
                             f"{rate / pool_rate:.2f}"))
            wall, latencies = health_load(url, args.clients, args.requests * args.items)
            rows.append((f"service GET /health, {args.clients} clients (HTTP only)",
                         f"{args.clients * args.requests * args.items / wall:.0f} req/s",
                         f"{1e3 * statistics.median(latencies):.1f}", f"{1e3 * percentile(latencies, 0.99):.1f}", "-"))
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)
    print(f"{args.collection}, {args.workers} pool workers, {total} verifies per row, {os.cpu_count()} CPUs")
    table(rows, ("mode", "verifies/s", "p50 ms", "p99 ms", "vs in-process"))


if __name__ == "__main__":
    main()
