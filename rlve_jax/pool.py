"""Host-side process pool that generates problems and verifies outputs with hard limits.

Every item runs in a `spawn`ed worker (no JAX state is forked) under a wall-clock
timeout that kills and replaces the worker, and an address-space limit. A timed-out
or crashed item becomes a format-error verdict (or a failed generation); the batch
always completes, in input order, with results independent of the worker count.
`workers=0` runs in-process for debugging (timeouts via SIGALRM in the main thread).
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import multiprocessing
import signal
import threading
from typing import Any, Iterator, Sequence

import pebble

from rlve_jax import registry
from rlve_jax.env import ANSWER_TAGS, Environment, Problem, Verdict

EnvRef = str | Environment  # a registered identifier, or an instance (e.g. a test-only environment)


class ItemTimeout(BaseException):
    """An in-process item ran past its time limit (a BaseException so verifiers cannot swallow it)."""


@dataclasses.dataclass
class PoolStats:
    generated: int = 0
    generate_failures: int = 0  # exceptions, timeouts and crashes during generation
    verified: int = 0
    timeouts: int = 0
    crashes: int = 0
    errors: int = 0  # unexpected exceptions outside the environment's own guard

    def as_dict(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@functools.lru_cache(maxsize=None)
def _registered(name: str) -> Environment:
    return registry.make(name)


def _resolve(env: EnvRef) -> Environment:
    return _registered(env) if isinstance(env, str) else env


def _generate_task(env: EnvRef, difficulty: int, seed: int) -> Problem:
    return _resolve(env).generate(difficulty, seed)


def _verify_task(env: EnvRef, problem: Problem, output: str, markers: tuple[str, str]) -> Verdict:
    return _resolve(env).verify(problem, output, markers)


def _limit_memory(memory_limit_mb: int | None) -> None:
    """Worker initializer: cap the address space so a runaway verifier fails with MemoryError."""
    if memory_limit_mb:
        import resource

        limit = memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """In-process time limit; only possible in the main thread."""
    if threading.current_thread() is not threading.main_thread() or not seconds:
        yield
        return

    def on_alarm(signum, frame):
        raise ItemTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class EnvPool:
    """Generate and verify batches in worker processes with per-item timeouts."""

    def __init__(self, workers: int = 2, timeout_s: float = 10.0, memory_limit_mb: int | None = 4096,
                 extra_envs: Sequence[Environment] = ()):
        if workers < 0 or timeout_s <= 0:
            raise ValueError(f"need workers >= 0 and timeout_s > 0, got {workers=} {timeout_s=}")
        self.workers, self.timeout_s = workers, timeout_s
        self.stats = PoolStats()
        self._extra = {env.name: env for env in extra_envs}
        self._pool = None
        if workers:
            self._pool = pebble.ProcessPool(
                max_workers=workers, initializer=_limit_memory, initargs=(memory_limit_mb,),
                context=multiprocessing.get_context("spawn"))

    def _ref(self, name: str) -> EnvRef:
        return self._extra.get(name, name)

    def generate(self, requests: Sequence[tuple[str, int, int]]) -> list[Problem | None]:
        """Problems for (env, difficulty, seed) requests; None where generation failed."""
        results = self._run(_generate_task, [(self._ref(e), d, s) for e, d, s in requests])
        problems = []
        for outcome, value in results:
            if outcome == "ok":
                self.stats.generated += 1
                problems.append(value)
            else:
                self.stats.generate_failures += 1
                problems.append(None)
        return problems

    def verify(self, problems: Sequence[Problem], outputs: Sequence[str],
               markers: tuple[str, str] = ANSWER_TAGS) -> list[Verdict]:
        """Verdicts for each (problem, output) pair, in order; failures become format errors."""
        if len(problems) != len(outputs):
            raise ValueError(f"{len(problems)} problems but {len(outputs)} outputs")
        results = self._run(_verify_task, [(self._ref(p.env), p, o, tuple(markers))
                                           for p, o in zip(problems, outputs)])
        self.stats.verified += len(results)
        return [value if outcome == "ok" else Verdict.format_error(outcome) for outcome, value in results]

    def _run(self, fn, arg_tuples: list[tuple]) -> list[tuple[str, Any]]:
        """Run fn over the items; each result is ('ok', value) or (timeout|crash|error, None)."""
        if self._pool is None:
            return [self._run_inline(fn, args) for args in arg_tuples]
        futures = [self._pool.schedule(fn, args=args, timeout=self.timeout_s) for args in arg_tuples]
        return [self._collect(future) for future in futures]

    def _run_inline(self, fn, args: tuple) -> tuple[str, Any]:
        try:
            with _alarm(self.timeout_s):
                return "ok", fn(*args)
        except ItemTimeout:
            self.stats.timeouts += 1
            return "timeout", None
        except Exception:  # noqa: BLE001
            self.stats.errors += 1
            return "error", None

    def _collect(self, future) -> tuple[str, Any]:
        try:
            return "ok", future.result()
        except concurrent.futures.TimeoutError:
            self.stats.timeouts += 1
            return "timeout", None
        except pebble.ProcessExpired:
            self.stats.crashes += 1
            return "crash", None
        except Exception:  # noqa: BLE001 -- e.g. a generator bug: the item fails, the batch goes on
            self.stats.errors += 1
            return "error", None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.stop()
            self._pool.join()
            self._pool = None

    def __enter__(self) -> "EnvPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def count_reasons(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many verdicts had each reason (for logs)."""
    return dict(collections.Counter(v.reason for v in verdicts))
