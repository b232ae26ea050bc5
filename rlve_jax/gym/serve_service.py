"""The gym behind the HTTP service: scheduler-driven problems, pooled verification, durable state.

The curriculum is the trainer's (rlve_jax/gym/scheduler `SchedulerSettings.build`, any registered kind; fed as
rlve_jax/rl/collector.py feeds it): problems come from `scheduler.sample()` (for `adaptive`: environment uniform,
level uniform in its window; every kind draws the seed's block of problem seeds 0, 1, 2, ...:
gym/scheduler.first_problem_seed) and are generated in the EnvPool; each verdict counts as
`Rollout(env, difficulty, accuracy, group=problem id)`, and one verify request is one `scheduler.update(...)` call,
as one training step is (send a step's verdicts in one request, a problem's G responses together, and the
scheduler moves exactly as in training: a group is a problem's responses within one request, as a record row is
in the trainer).

Threads: the scheduler and the database live on one thread ("state"), the pool on another ("pool"); the
event loop only awaits them. Verify requests arriving while the pool is busy are verified together in its
next batch (the pool's own limits apply per item: wall-clock timeout, address-space limit).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import dataclasses
import hashlib
import json
import time
import uuid
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from rlve_jax.gym import registry
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.gym.integrations import PROMPT_FORMATS, markers_for, wrap_prompt
from rlve_jax.gym.pool import EnvPool
from rlve_jax.gym.scheduler import Rollout, SchedulerSettings
from rlve_jax.gym.serve_state import LoggedVerdict, StateStore

PROBLEM_CACHE_SIZE = 65_536  # problems kept in memory (the rest are read back from the database)
LATENCY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class UnknownProblem(KeyError):
    """A verify request named a problem this service never handed out."""


class RequestConflict(ValueError):
    """A request id already used by a request of another kind, or with another body."""


def body_hash(kind: str, body: Any) -> str:
    """What a request asks for, hashed and stored with its id: a retry must ask for the same thing."""
    return hashlib.sha256(json.dumps([kind, body]).encode()).hexdigest()


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    return {"reward": verdict.reward, "accuracy": bool(verdict.accuracy), "format_ok": bool(verdict.format_ok),
            "reason": verdict.reason}


class GymService:
    """One collection's adaptive gym with its state kept in `state_dir` (resumed when it exists)."""

    def __init__(self, state_dir: str | Path, collection: str, scheduler: SchedulerSettings = SchedulerSettings(),
                 prompt_format: str = "chat", workers: int = 4, timeout_s: float = 10.0,
                 memory_limit_mb: int | None = 4096, sync: str = "full", accept_state_loss: bool = False):
        if prompt_format not in PROMPT_FORMATS:
            raise ValueError(f"prompt format must be one of {PROMPT_FORMATS}, got {prompt_format!r}")
        if workers < 1:
            raise ValueError(f"the service verifies in worker processes: need workers >= 1, got {workers}")
        self.env_names = registry.resolve(collection)
        envs = registry.make_all(self.env_names)
        self.scheduler = scheduler.build(self.env_names, {env.name: env.max_difficulty for env in envs})
        self.collection, self.prompt_format, self.markers = collection, prompt_format, markers_for(prompt_format)
        self.store = StateStore(state_dir, sync, accept_state_loss)
        settings = {"collection": collection, "env_names": list(self.env_names), "prompt_format": prompt_format,
                    "scheduler": dataclasses.asdict(scheduler)}
        stored = self.store.get_meta("settings")
        if stored is None:
            self.store.set_meta("settings", settings)
        elif settings != {**stored, "scheduler": {**dataclasses.asdict(SchedulerSettings()), **stored["scheduler"]}}:
            # (a state made before a scheduler setting existed ran with that setting's default)
            changed = sorted(k for k in settings if stored.get(k) != settings[k])
            raise ValueError(f"{self.store.path} was made with other settings ({', '.join(changed)} differ): "
                             f"start with the same flags or another --state directory")
        state = self.store.get_meta("scheduler")
        if state is not None:
            self.scheduler.load_state_dict(state)
        self.pool = EnvPool(workers, timeout_s, memory_limit_mb)
        self.problems: collections.OrderedDict[int, Problem] = collections.OrderedDict()
        self.verdict_counts = collections.Counter(self.store.verdict_counts())  # {(env, reason): n}
        self.problem_counts = collections.Counter(self.store.problem_counts())  # {env: n}
        self.metrics_registry = CollectorRegistry()
        self.latency = Histogram("rlve_verify_latency_seconds", "Time from a verify request's arrival at the "
                                 "pool queue to its verdict, per environment", ["env"], buckets=LATENCY_BUCKETS_S,
                                 registry=self.metrics_registry)
        self.metrics_registry.register(_SchedulerCollector(self))
        self._state_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gym-state")
        self._pool_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="gym-pool")
        self._verifying, self._applying = _Group(self._pool_thread), _Group(self._state_thread)

    # -- the two operations ------------------------------------------------------
    async def draw(self, n: int, request_id: str | None = None) -> dict[str, Any]:
        """n problems from the scheduler (fewer where generation failed: those draws are listed in `failed`,
        their seeds used up, as in training)."""
        request_id, digest = request_id or uuid.uuid4().hex, body_hash("draw", n)
        stored = await self._on_state(self._stored_draw, request_id, digest)
        if stored is not None:
            return stored
        draws = await self._on_state(lambda: [self.scheduler.sample() for _ in range(n)])
        problems = await asyncio.get_running_loop().run_in_executor(
            self._pool_thread, self.pool.generate, [tuple(d) for d in draws])
        return await self._on_state(self._commit_draw, request_id, digest, draws, problems)

    async def verify(self, items: Sequence[tuple[int, str]], request_id: str | None = None) -> dict[str, Any]:
        """Verdicts for (problem_id, response) items, applied to the scheduler as one update; a request id seen
        before with the same items gets its stored response back (`replayed: true`) and counts nothing again,
        with other items a RequestConflict."""
        request_id, digest = request_id or uuid.uuid4().hex, body_hash("verify", [list(item) for item in items])
        stored, problems = await self._on_state(self._prepare_verify, request_id, digest, [i for i, _ in items])
        if stored is not None:
            return stored
        start = time.perf_counter()
        verdicts = await self._verify_batched([(p, response) for p, (_, response) in zip(problems, items)])
        seconds = time.perf_counter() - start
        for problem in problems:
            self.latency.labels(problem.env).observe(seconds)
        result = await self._grouped(self._applying, self._apply_all, (request_id, digest, problems, verdicts))
        if isinstance(result, Exception):
            raise result
        return result

    def problem_view(self, problem: Problem) -> dict[str, Any]:
        """What a client gets for a problem: its id, environment, level, seed and the wrapped prompt."""
        return {"problem_id": problem.seed, "env": problem.env, "difficulty": problem.difficulty,
                "seed": problem.seed, "prompt": wrap_prompt(problem.prompt, self.prompt_format),
                "answer_markers": list(self.markers)}

    async def scheduler_state(self) -> dict:
        return await self._on_state(self.scheduler.state_dict)

    async def env_state(self, env: str) -> dict[str, Any]:
        """One environment's curriculum state (the scheduler's `describe`: for adaptive its level, window and counts
        at its level) and its counts (KeyError when not served)."""
        if env not in self.scheduler.max_levels:
            raise KeyError(env)

        def read() -> dict[str, Any]:
            return {"env": env, **self.scheduler.describe(env), "top_level": self.scheduler.max_levels.get(env),
                    "problems": self.problem_counts[env],
                    "verdicts": sum(n for (e, _), n in self.verdict_counts.items() if e == env)}

        return await self._on_state(read)

    def summary(self) -> dict[str, Any]:
        return {"collection": self.collection, "env_names": list(self.env_names),
                "problem_seed": self.scheduler.problem_seed, "problems": sum(self.problem_counts.values()),
                "verdicts": sum(self.verdict_counts.values()), "prompt_format": self.prompt_format}

    def close(self) -> None:
        self._pool_thread.shutdown(wait=True)
        self._state_thread.shutdown(wait=True)
        self.pool.close()
        self.store.close()

    # -- on the state thread --------------------------------------------------------
    async def _on_state(self, fn: Callable, *args) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._state_thread, fn, *args)

    def _stored(self, request_id: str, kind: str, digest: str) -> dict | None:
        """The stored response of a retry; RequestConflict when the id was used for another request."""
        found = self.store.request(request_id)
        if found is None:
            return None
        stored, stored_digest = found
        if stored["kind"] != kind:
            raise RequestConflict(f"request id {request_id!r} was already used by a {stored['kind']} request")
        if stored_digest is not None and stored_digest != digest:
            _conflict(request_id)
        return stored

    def _stored_draw(self, request_id: str, digest: str) -> dict | None:
        stored = self._stored(request_id, "draw", digest)
        if stored is None:
            return None
        return {"request_id": request_id, "problems": [self.problem_view(p) for p in self._lookup(stored["ids"])],
                "failed": stored["failed"], "replayed": True}

    def _prepare_verify(self, request_id: str, digest: str,
                        problem_ids: list[int]) -> tuple[dict | None, list[Problem]]:
        """(the stored response of a retry, []) or (None, the problems to verify)."""
        stored = self._stored_verify(request_id, digest)
        return (stored, []) if stored is not None else (None, self._lookup(problem_ids))

    def _stored_verify(self, request_id: str, digest: str) -> dict | None:
        stored = self._stored(request_id, "verify", digest)
        return None if stored is None else {**stored["response"], "replayed": True}

    def _commit_draw(self, request_id: str, digest: str, draws: list,
                     problems: list[Problem | None]) -> dict[str, Any]:
        stored = self._stored_draw(request_id, digest)  # the same request id raced this one and won
        if stored is not None:
            return stored
        made = [p for p in problems if p is not None]
        failed = [d._asdict() for d, p in zip(draws, problems) if p is None]
        self.store.commit_draw(request_id, digest, made, self.scheduler.state_dict(),
                               {"kind": "draw", "ids": [p.seed for p in made], "failed": failed})
        for problem in made:
            self._remember(problem)
            self.problem_counts[problem.env] += 1
        return {"request_id": request_id, "problems": [self.problem_view(p) for p in made], "failed": failed,
                "replayed": False}

    def _apply_all(self, pending: list[tuple[str, str, list[Problem], list[Verdict]]]) -> list[dict[str, Any]]:
        """Apply verify requests in arrival order, each one scheduler update, and commit them together."""
        before = self.scheduler.state_dict()
        responses, to_commit, seen = [], [], {}
        for request_id, digest, problems, verdicts in pending:
            try:
                stored = self._stored_verify(request_id, digest)  # the same request id raced this one and won
                if request_id in seen and seen[request_id] != digest:
                    _conflict(request_id)
            except RequestConflict as error:
                responses.append(error)
                continue
            if stored is not None or request_id in seen:
                responses.append(stored or request_id)
                continue
            seen[request_id] = digest
            promoted = self.scheduler.update(Rollout(p.env, p.difficulty, float(v.accuracy), group=p.seed)
                                             for p, v in zip(problems, verdicts))
            response = {"request_id": request_id, "promoted": promoted,
                        "verdicts": [{"problem_id": p.seed, "env": p.env, "difficulty": p.difficulty,
                                      **verdict_json(v)} for p, v in zip(problems, verdicts)]}
            logged = [LoggedVerdict(request_id, p.seed, p.env, p.difficulty, v.reward, v.accuracy, v.format_ok,
                                    v.reason) for p, v in zip(problems, verdicts)]
            to_commit.append((request_id, digest, logged, {"kind": "verify", "response": response}))
            responses.append({**response, "replayed": False})
        try:
            if to_commit:
                self.store.commit_verdicts(to_commit, self.scheduler.state_dict())
        except BaseException:
            self.scheduler.load_state_dict(before)  # not acknowledged: not counted
            raise
        for _, _, logged, _ in to_commit:
            for row in logged:
                self.verdict_counts[row.env, row.reason] += 1
        # A duplicate within the group gets the response of its first copy.
        first = {r["request_id"]: r for r in responses if isinstance(r, dict) and not r["replayed"]}
        return [{**first[r], "replayed": True} if isinstance(r, str) else r for r in responses]  # or the error

    def _lookup(self, problem_ids: Sequence[int]) -> list[Problem]:
        problems = []
        for problem_id in problem_ids:
            problem = self.problems.get(problem_id)
            if problem is None:
                problem = self.store.problem(problem_id)
                if problem is None:
                    raise UnknownProblem(f"unknown problem_id {problem_id}: this service never handed it out")
                self._remember(problem)
            else:
                self.problems.move_to_end(problem_id)
            problems.append(problem)
        return problems

    def _remember(self, problem: Problem) -> None:
        self.problems[problem.seed] = problem
        if len(self.problems) > PROBLEM_CACHE_SIZE:
            self.problems.popitem(last=False)

    # -- batching: concurrent requests share a pool batch, and a commit ---------------------------------------
    async def _verify_batched(self, items: list[tuple[Problem, str]]) -> list[Verdict]:
        return await self._grouped(self._verifying, self._verify_groups, items)

    def _verify_groups(self, groups: list[list[tuple[Problem, str]]]) -> list[list[Verdict]]:
        """One pool call for every waiting request's items."""
        verdicts = self.pool.verify([p for items in groups for p, _ in items],
                                    [r for items in groups for _, r in items], self.markers)
        out = []
        for items in groups:
            out.append(verdicts[:len(items)])
            verdicts = verdicts[len(items):]
        return out

    async def _grouped(self, group: "_Group", run: Callable[[list], list], item: Any) -> Any:
        """Queue `item`; while a group runs the next one gathers, and `run` gets them all (on its thread)."""
        future = asyncio.get_running_loop().create_future()
        group.waiting.append((item, future))
        if not group.running:
            group.running = True
            asyncio.get_running_loop().create_task(self._drain(group, run))
        return await future

    async def _drain(self, group: "_Group", run: Callable[[list], list]) -> None:
        loop = asyncio.get_running_loop()
        try:
            while group.waiting:
                batch, group.waiting = group.waiting, []
                try:
                    results = await loop.run_in_executor(group.thread, run, [item for item, _ in batch])
                except Exception as error:  # noqa: BLE001 -- every waiting request learns why
                    for _, future in batch:
                        future.set_exception(error)
                    continue
                for (_, future), result in zip(batch, results):
                    future.set_result(result)
        finally:
            group.running = False


def _conflict(request_id: str) -> NoReturn:
    raise RequestConflict(f"request id {request_id!r} was already used with another body: a retry resends the same "
                          "request, a new request needs a new id")


@dataclasses.dataclass
class _Group:
    """Requests waiting for their thread's next batch."""

    thread: concurrent.futures.ThreadPoolExecutor
    waiting: list = dataclasses.field(default_factory=list)
    running: bool = False


class _SchedulerCollector:
    """Prometheus families read from the service at scrape time: levels, accuracy at h (window kinds), counts."""

    def __init__(self, service: GymService):
        self.service = service

    def collect(self):
        s = self.service
        levels = s.scheduler.levels()
        level = GaugeMetricFamily("rlve_difficulty", "The environment's level: h, its window's top (adaptive, static), "
                                  "or the expected level of its next draw (learnability, thompson)", labels=["env"])
        accuracy = GaugeMetricFamily("rlve_accuracy_at_h", "Mean accuracy of the verdicts counted at h since the "
                                     "last promotion check (0 when none)", labels=["env"])
        samples = GaugeMetricFamily("rlve_samples_at_h", "Verdicts counted at h since the last promotion check",
                                    labels=["env"])
        for env, h in levels.items():
            level.add_metric([env], h)
            view = s.scheduler.describe(env)
            if "samples_at_h" in view:
                accuracy.add_metric([env], view["accuracy_at_h"] or 0.0)
                samples.add_metric([env], view["samples_at_h"])
        verdicts = CounterMetricFamily("rlve_verdicts", "Verdicts applied, by environment and reason",
                                       labels=["env", "reason"])
        for (env, reason), n in dict(s.verdict_counts).items():
            verdicts.add_metric([env, reason], n)
        problems = CounterMetricFamily("rlve_problems", "Problems handed out", labels=["env"])
        for env, n in dict(s.problem_counts).items():
            problems.add_metric([env], n)
        pool = CounterMetricFamily("rlve_pool_items_failed", "Pool items that timed out, crashed or raised since "
                                   "start", labels=["outcome"])
        for outcome in ("timeouts", "crashes", "errors"):
            pool.add_metric([outcome], getattr(s.pool.stats, outcome))
        yield from (level, accuracy, samples, verdicts, problems, pool)
