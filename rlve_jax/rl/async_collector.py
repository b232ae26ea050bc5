"""One-step-off-policy rollouts: the next step's batch is collected on the rollout sub-mesh while the learner
updates on this step's batch on the training sub-mesh (mesh.rollout_devices > 0, train.max_staleness).

The Trainer drives it through the BatchSource interface (rl/collector.py); per step k (the trainer's step count =
the policy version, updates applied so far):

    batch k = take(k)                  the batch collected in the background (or now, with the current weights)
    scheduler.update(batch k)          the collector is idle: the scheduler sees batch k before batch k+1 draws
    ahead(k + 1, version k)            max_staleness 1: a copy of the current weights goes to the rollout mesh and
                                       batch k+1 is collected in a background thread while ...
    learner.update(batch k)            ... the update runs (JAX dispatch is thread-safe; verification runs in
                                       the pool's processes)
    ahead(k + 1, version k + 1)        max_staleness 0: only now, with the new weights (no overlap)

Batch j is therefore always drawn with the weights after j - max_staleness updates (but never older than the
weights the process started or resumed with), so a run is a deterministic function of its config: staleness 0
reproduces the synchronous loop on the same two meshes exactly. The scheduler is updated between two
collections, never during one: a batch is planned after every earlier batch's results are known, only the
weights it is sampled with lag (the adaptive scheduler's rule is unchanged). One background collection at a
time: with one rollout mesh producing batches in order, a lag of 1 already keeps the slower side busy.

An in-flight batch at a checkpoint (or before the in-training evaluation, which shares the pool and the
rollout mesh) is waited for first; a checkpoint then holds it, complete, beside the scheduler state it left
(`state_dict`), so a resumed run trains on the same batch and draws the next one with the same weights.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time
from typing import Any

import numpy as np
from flax import nnx

from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.models.policy import Policy
from rlve_jax.rl.collector import Collection, Collector, GroupRecords
from rlve_jax.rl.rollout import Group, RolloutStats


class AsyncCollector:
    """The BatchSource that collects batch k+1 in a background thread with a copy of the weights on the rollout
    sub-mesh while the learner updates on batch k."""

    def __init__(self, collector: Collector, policy: Policy, max_staleness: int):
        if set(policy.sampler_mesh.devices.flat) & set(policy.mesh.devices.flat):
            raise ValueError("one-step-off-policy training needs a rollout mesh of its own: set "
                             "mesh.rollout_devices > 0")
        self.collector, self.policy, self.max_staleness = collector, policy, max_staleness
        self.executor = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="rollouts")
        self.in_flight: tuple[int, concurrent.futures.Future] | None = None  # (step, its Collection to come)
        self.waited = {"weight_transfer": 0.0, "wait_rollouts": 0.0}  # this step's, main thread

    def rollout_model(self, params) -> nnx.Module:
        """`params` copied onto the rollout mesh (the previous copy is no longer in use)."""
        start = time.perf_counter()
        model = self.policy.sampler_model(params)
        self.waited["weight_transfer"] += time.perf_counter() - start
        return model

    def ahead(self, step: int, params, version: int) -> None:
        """`params` are those after `version` updates: start collecting batch `step` with them if they lag it by
        exactly max_staleness (and no collection runs)."""
        if self.in_flight is None and step - version == self.max_staleness:
            model = self.rollout_model(params)
            self.in_flight = (step, self.executor.submit(self.collector.collect, step, model, version))

    def take(self, step: int, params) -> Collection:
        """Batch `step`: the one collected in the background, else collected now with `params`."""
        start = time.perf_counter()
        if self.in_flight is None:
            collection = self.collector.collect(step, self.rollout_model(params), step)
        else:
            expected, future = self.in_flight
            if expected != step:
                raise RuntimeError(f"the batch in flight is step {expected}'s, not step {step}'s")
            self.in_flight = None
            collection = future.result()
        self.waited["wait_rollouts"] += time.perf_counter() - start
        return collection

    def settle(self) -> None:
        """Until the batch in flight (if any) is collected: the pool, the scheduler and the rollout mesh are
        then free (for a checkpoint, the in-training evaluation)."""
        if self.in_flight is not None:
            start = time.perf_counter()
            concurrent.futures.wait([self.in_flight[1]])
            self.waited["wait_rollouts"] += time.perf_counter() - start

    def seconds(self) -> dict[str, float]:
        """time/ metrics of the main thread since the last call (waiting for rollouts, sending weights)."""
        waited, self.waited = self.waited, dict.fromkeys(self.waited, 0.0)
        return {f"time/{name}": value for name, value in waited.items()}

    def state_dict(self) -> dict:
        """The collector's state and the batch collected ahead, complete (waited for)."""
        self.settle()
        ahead = None
        if self.in_flight is not None:
            step, future = self.in_flight
            ahead = {"step": step, "collection": collection_to_dict(future.result())}
        return {**self.collector.state_dict(), "ahead": ahead}

    def load_state_dict(self, state: dict) -> None:
        self.collector.load_state_dict(state)
        ahead = state.get("ahead")
        if ahead is not None:
            future: concurrent.futures.Future = concurrent.futures.Future()
            future.set_result(collection_from_dict(ahead["collection"]))
            self.in_flight = (ahead["step"], future)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


# -- a collected batch as JSON (a checkpoint holds the batch collected ahead) ---------------------------------


def group_to_dict(group: Group) -> dict[str, Any]:
    """JSON-native; float32 sampler logprobs survive the float64 text exactly."""
    return {"problem": group.problem.to_json(), "prompt_tokens": group.prompt_tokens,
            "response_tokens": group.response_tokens, "response_texts": group.response_texts,
            "sampler_logprobs": [np.asarray(x, np.float32).tolist() for x in group.sampler_logprobs],
            "truncated": [bool(t) for t in group.truncated],
            "verdicts": [dataclasses.asdict(v) for v in group.verdicts]}


def group_from_dict(d: dict[str, Any]) -> Group:
    return Group(Problem.from_json(d["problem"]), list(d["prompt_tokens"]), [list(r) for r in d["response_tokens"]],
                 list(d["response_texts"]), [np.asarray(x, np.float32) for x in d["sampler_logprobs"]],
                 list(d["truncated"]), [Verdict(**v) for v in d["verdicts"]])


def collection_to_dict(collection: Collection) -> dict[str, Any]:
    records = {name: {"dtype": x.dtype.str, "shape": list(x.shape), "values": x.reshape(-1).tolist()}
               for name, x in collection.records._asdict().items()}
    return {"mine": [group_to_dict(g) for g in collection.mine], "records": records,
            "kept": collection.kept.tolist(), "stats": dataclasses.asdict(collection.stats),
            "failures": dict(collection.failures)}


def collection_from_dict(d: dict[str, Any]) -> Collection:
    records = GroupRecords(**{name: np.asarray(x["values"], np.dtype(x["dtype"])).reshape(x["shape"])
                              for name, x in d["records"].items()})
    return Collection([group_from_dict(g) for g in d["mine"]], records, np.asarray(d["kept"], np.int64),
                      RolloutStats(**d["stats"]), dict(d["failures"]))

