"""Host-side process pool that generates problems and verifies outputs with hard limits.

Every item runs in a worker process under a wall-clock timeout that kills and replaces the worker,
and an address-space limit. Workers start as fresh interpreters (fork+exec: no JAX state or thread is
forked) through loky's process launcher, which does not re-import the caller's `__main__`: a script
without an `if __name__ == "__main__":` guard (how TRL's examples are written) scores normally instead
of re-running itself in every worker, and a trainer's workers never import JAX. Workers import
the whole gym in their initializer, before they take an item, and an item's timeout
counts from the moment a worker starts it: a verdict never depends on start-up time.
A timed-out or crashed item becomes a format-error verdict (or a failed generation);
anything environment code raises, BaseException included, is a verdict too. A worker
that dies (an OOM kill, idle or busy) costs nothing: the pool is rebuilt when pebble
reports it broken and the affected items run once more. The batch always completes,
in input order, with results independent of the worker count.
`workers=0` runs in-process for debugging (timeouts via SIGALRM in the main thread).
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import dataclasses
import functools
import logging
import signal
import threading
import time
from typing import Any, Callable, Iterator, Sequence

import pebble
from loky.backend import context as loky_context

from rlve_jax.gym import registry
from rlve_jax.gym.env import DEFAULT_MARKERS, Environment, Problem, Verdict

log = logging.getLogger(__name__)

FAILURES = ("timeout", "crash", "error")  # item outcomes that count against the failure budget
_BROKEN_GRACE_S = 1.0  # after pebble reports a broken pool, how long its queued items get to resolve


class ItemTimeout(BaseException):
    """An in-process item ran past its time limit (a BaseException so verifiers cannot swallow it)."""


class FailureBudgetExceeded(RuntimeError):
    """Too many of a step's generations or verifications failed; the message names who and why."""


@dataclasses.dataclass
class PoolStats:
    """Cumulative counters (saved in the checkpoint's meta, restored on resume)."""

    generated: int = 0
    generate_failures: int = 0  # exceptions, timeouts and crashes during generation
    verified: int = 0
    timeouts: int = 0
    crashes: int = 0
    errors: int = 0  # exceptions outside the environment's own guard (BaseException included)
    retries: int = 0  # items run again after their worker died or the pool broke
    restarts: int = 0  # pools rebuilt after pebble marked one broken
    failures: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # {env: {"generate/timeout": n}}
    # failed generations per environment and level: {env: {"17": n}} (levels as text, as JSON keeps them)
    generate_failure_levels: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> "PoolStats":
        """Counters from a checkpoint (keys an older checkpoint lacks start at zero)."""
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in state.items() if k in known})


@dataclasses.dataclass
class FailureTally:
    """One step's items: how many were attempted per kind, and which failed (kind, env, reason), with
    the failed generations per (env, level)."""

    attempted: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failed: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failed_levels: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def metrics(self) -> dict[str, int]:
        """Step metrics: failed generations and verifications, failures per environment, and failed
        generations per environment and level (`pool_failed_generations/<env>/level_<d>`)."""
        out = {"pool/failed_generations": 0, "pool/failed_verifications": 0}
        for (kind, env, _), n in self.failed.items():
            out["pool/failed_generations" if kind == "generate" else "pool/failed_verifications"] += n
            out[f"pool_failures/{env}"] = out.get(f"pool_failures/{env}", 0) + n
        for (env, level), n in sorted(self.failed_levels.items()):
            out[f"pool_failed_generations/{env}/level_{level}"] = n
        return out


def check_failure_budget(tally: FailureTally, max_share: float, where: str) -> None:
    """Raise FailureBudgetExceeded (one line) when more than `max_share` of a kind's items failed."""
    message = failure_budget_message(tally, max_share, where)
    if message is not None:
        raise FailureBudgetExceeded(message)


def failure_budget_message(tally: FailureTally, max_share: float, where: str) -> str | None:
    """The one-line reason to stop when more than `max_share` of a kind's items failed, else None."""
    for kind, noun in (("generate", "generations"), ("verify", "verifications")):
        attempted = tally.attempted[kind]
        failed = {(env, reason): n for (k, env, reason), n in tally.failed.items() if k == kind}
        total = sum(failed.values())
        if attempted and total > max_share * attempted:
            worst = sorted(failed.items(), key=lambda item: (-item[1], item[0]))
            named = ", ".join(f"{env} {n}x {reason}" for (env, reason), n in worst[:8])
            more = f" and {len(worst) - 8} more" if len(worst) > 8 else ""
            return (f"{where}: {total} of {attempted} {noun} failed, more than env.max_failure_share={max_share:g} "
                    f"allows ({named}{more}); raise env.timeout_s / env.memory_limit_mb or drop those environments")
    return None


# ---------------------------------------------------------------------------
# Worker side

_WORKER_ENVS: dict[str, Environment] = {}  # extra (unregistered) environments known to this process


@functools.lru_cache(maxsize=None)
def _registered(name: str) -> Environment:
    return registry.make(name)


def _environment(name: str) -> Environment:
    return _WORKER_ENVS.get(name) or _registered(name)


def _init_worker(memory_limit_mb: int | None, extra_envs: tuple[Environment, ...]) -> None:
    """Cap the address space (a runaway fails with MemoryError), then import everything an item needs,
    so that no timed item ever pays for an import."""
    if memory_limit_mb:
        import resource

        limit = memory_limit_mb * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    _WORKER_ENVS.update({env.name: env for env in extra_envs})
    registry.names()  # imports every environment module


def _guarded(fn: Callable, *args) -> tuple[str, Any]:
    """The worker-side entry of every item: ('ok', value), or ('error', 'Type: message') for anything
    the call raises, SystemExit and KeyboardInterrupt included (environment code must never end a
    worker, nor reach the trainer through pebble's re-raise)."""
    try:
        return "ok", fn(*args)
    except BaseException as error:  # noqa: BLE001
        return "error", f"{type(error).__name__}: {str(error)[:200]}"


def _generate_task(name: str, difficulty: int, seed: int) -> Problem:
    return _environment(name).generate(difficulty, seed)


def _verify_task(name: str, problem: Problem, output: str, markers: tuple[str, str]) -> Verdict:
    return _environment(name).verify(problem, output, markers)


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


# ---------------------------------------------------------------------------
# The pool


@dataclasses.dataclass(frozen=True)
class PoolSettings:
    """The env section's pool keys: EnvPool(**dataclasses.asdict(settings))."""

    workers: int  # worker processes; 0: in-process (debugging: no memory limit)
    timeout_s: float  # per-item wall-clock limit
    memory_limit_mb: int  # per-worker address-space limit; 0: none


class EnvPool:
    """Generate and verify batches in worker processes with per-item timeouts."""

    def __init__(self, workers: int = 2, timeout_s: float = 10.0, memory_limit_mb: int | None = 4096,
                 extra_envs: Sequence[Environment] = ()):
        if workers < 0 or not timeout_s > 0:
            raise ValueError(f"need workers >= 0 and timeout_s > 0, got {workers=} {timeout_s=}")
        self.workers, self.timeout_s, self.memory_limit_mb = workers, timeout_s, memory_limit_mb
        self.stats = PoolStats()
        self.tally = FailureTally()
        self._extra = tuple(extra_envs)
        self._pool: pebble.ProcessPool | None = None
        if workers:
            self._start()
        else:
            _WORKER_ENVS.update({env.name: env for env in self._extra})

    def _start(self) -> None:
        self._pool = pebble.ProcessPool(
            max_workers=self.workers, initializer=_init_worker, initargs=(self.memory_limit_mb, self._extra),
            context=loky_context.get_context("loky"))

    def _restart(self) -> None:
        """A fresh pebble pool in place of a broken one."""
        self._stop()
        self._start()
        self.stats.restarts += 1
        log.warning("the environment pool broke (a worker died); started a new one")

    def take_tally(self) -> FailureTally:
        """The items attempted and failed since the last call (one step's worth), and a fresh tally."""
        tally, self.tally = self.tally, FailureTally()
        return tally

    def _count_failure(self, kind: str, env: str, outcome: str) -> None:
        self.tally.failed[kind, env, outcome] += 1
        per_env = self.stats.failures.setdefault(env, {})
        per_env[f"{kind}/{outcome}"] = per_env.get(f"{kind}/{outcome}", 0) + 1

    def generate(self, requests: Sequence[tuple[str, int, int]]) -> list[Problem | None]:
        """Problems for (env, difficulty, seed) requests; None where generation failed (counted per environment
        and level, and logged in one line per batch)."""
        results = self._run(_generate_task, [(e, d, s) for e, d, s in requests])
        self.tally.attempted["generate"] += len(results)
        problems, failed = [], []
        for (env, difficulty, seed), (outcome, value) in zip(requests, results):
            if outcome == "ok":
                self.stats.generated += 1
                problems.append(value)
            else:
                self.stats.generate_failures += 1
                self._count_failure("generate", env, outcome)
                self.tally.failed_levels[env, difficulty] += 1
                per_level = self.stats.generate_failure_levels.setdefault(env, {})
                per_level[str(difficulty)] = per_level.get(str(difficulty), 0) + 1
                failed.append(f"{env} level {difficulty} seed {seed}: {value or outcome}")
                problems.append(None)
        if failed:
            more = f" and {len(failed) - 8} more" if len(failed) > 8 else ""
            log.warning("%d of %d generations failed: %s%s", len(failed), len(results), "; ".join(failed[:8]), more)
        return problems

    def verify(self, problems: Sequence[Problem], outputs: Sequence[str],
               markers: tuple[str, str] = DEFAULT_MARKERS) -> list[Verdict]:
        """Verdicts for each (problem, output) pair, in order; failures become format errors."""
        if len(problems) != len(outputs):
            raise ValueError(f"{len(problems)} problems but {len(outputs)} outputs")
        results = self._run(_verify_task, [(p.env, p, o, tuple(markers)) for p, o in zip(problems, outputs)])
        self.stats.verified += len(results)
        self.tally.attempted["verify"] += len(results)
        verdicts = []
        for problem, (outcome, value) in zip(problems, results):
            if outcome == "ok":
                verdicts.append(value)
            else:
                self._count_failure("verify", problem.env, outcome)
                verdicts.append(Verdict.format_error(outcome))
        return verdicts

    def _run(self, fn, arg_tuples: list[tuple]) -> list[tuple[str, Any]]:
        """Run fn over the items; each result is ('ok', value), ('error', 'Type: message' or None) or
        (timeout|crash, None).

        Items whose worker died, or that a broken pool dropped, run once more on a fresh pool;
        a second loss is a crash.
        """
        if self.workers == 0:
            return [self._run_inline(fn, args) for args in arg_tuples]
        results: list[tuple[str, Any] | None] = [None] * len(arg_tuples)
        todo = list(range(len(arg_tuples)))
        for attempt in range(2):
            lost = self._attempt(fn, arg_tuples, todo, results, final=attempt == 1)
            if not lost:
                break
            self.stats.retries += len(lost)
            todo = lost
        return results  # type: ignore[return-value]

    def _attempt(self, fn, arg_tuples: list[tuple], todo: list[int], results: list, final: bool) -> list[int]:
        """Run the `todo` items once, filling `results`; returns the lost items (to retry unless final)."""
        if not self._pool.active:  # broken while idle: every call would fail
            self._restart()
        futures = {}
        for i in todo:
            try:
                futures[i] = self._pool.schedule(_guarded, args=(fn, *arg_tuples[i]), timeout=self.timeout_s)
            except RuntimeError:  # the pool broke while we were scheduling
                break
        outcomes = self._wait(futures)
        lost = [i for i in todo if outcomes.get(i, ("lost", None))[0] == "lost"]
        for i, outcome in outcomes.items():
            if outcome[0] != "lost":
                results[i] = outcome
        if lost and not self._pool.active:
            self._restart()
        if final:
            for i in lost:
                self.stats.crashes += 1
                results[i] = ("crash", None)
            return []
        return lost

    def _wait(self, futures: dict[int, concurrent.futures.Future]) -> dict[int, tuple[str, Any]]:
        """Every future's outcome; a broken pool leaves its queued items 'lost' instead of hanging."""
        pending = set(futures.values())
        broken_since = None
        while pending:
            _, pending = concurrent.futures.wait(pending, timeout=0.2)
            if pending and not self._pool.active:
                broken_since = broken_since or time.monotonic()
                if time.monotonic() - broken_since > _BROKEN_GRACE_S:
                    break
        return {i: self._collect(future) if future.done() else ("lost", None) for i, future in futures.items()}

    def _run_inline(self, fn, args: tuple) -> tuple[str, Any]:
        try:
            with _alarm(self.timeout_s):
                return "ok", fn(*args)
        except ItemTimeout:
            self.stats.timeouts += 1
            return "timeout", None
        except KeyboardInterrupt:  # in-process (debug) mode: Ctrl-C still stops the run
            raise
        except BaseException as error:  # noqa: BLE001 -- SystemExit from environment code included
            self.stats.errors += 1
            return "error", f"{type(error).__name__}: {str(error)[:200]}"

    def _collect(self, future) -> tuple[str, Any]:
        try:
            outcome, value = future.result()
        except concurrent.futures.TimeoutError:
            self.stats.timeouts += 1
            return "timeout", None
        except pebble.ProcessExpired:  # the worker died with the item (a crash, or an OOM kill): retry
            return "lost", None
        except concurrent.futures.CancelledError:
            return "lost", None
        except RuntimeError:  # BrokenProcessPool: pebble aborted the item
            return "lost", None
        except BaseException:  # noqa: BLE001 -- e.g. an unpicklable result: the item fails, the batch goes on
            self.stats.errors += 1
            return "error", None
        if outcome == "error":
            self.stats.errors += 1
            return "error", value  # the guarded call's 'Type: message'
        return "ok", value

    def _stop(self) -> None:
        if self._pool is not None:
            self._pool.stop()
            self._pool.join()
            self._pool = None

    def close(self) -> None:
        self._stop()

    def __enter__(self) -> "EnvPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def count_reasons(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many verdicts had each reason (for logs)."""
    return dict(collections.Counter(v.reason for v in verdicts))
