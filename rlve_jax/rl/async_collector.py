"""One-step-off-policy rollouts: the next step's batch is collected on each process's rollout devices while the
learner updates on this step's batch on every process's training devices (mesh.rollout_devices > 0: each
process's last N devices, train.max_staleness).

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
rollout mesh) is waited for first; a checkpoint then holds it, complete, with every process's groups as arrays,
beside the scheduler state it left (`state_dict`), so a resumed run trains on the same batch and draws the next one
with the same weights (on another process count, the batch's groups are dealt out anew).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import time
from typing import Any

import jax
import numpy as np
from flax import nnx

from rlve_jax.models.policy import Policy
from rlve_jax.rl import batch_arrays
from rlve_jax.rl.collector import Collection, Collector, GroupRecords, rank_within
from rlve_jax.rl.rollout import RolloutStats
from rlve_jax.runtime import distributed


class AsyncCollector:
    """The BatchSource that collects batch k+1 in a background thread with a copy of the weights on the rollout
    sub-mesh while the learner updates on batch k."""

    def __init__(self, collector: Collector, policy: Policy, max_staleness: int):
        training = list(policy.mesh.devices.flat)
        if set(policy.sampler_mesh.devices.flat) & set(training):
            raise ValueError("one-step-off-policy training needs a rollout mesh of its own: set "
                             "mesh.rollout_devices > 0")
        self.collector, self.policy, self.max_staleness = collector, policy, max_staleness
        # Each thread's exchanges between processes on its own devices: the rollouts' on every process's rollout
        # devices, the learner's (this thread's) on the training devices (runtime/distributed.py).
        distributed.exchange_on(training)
        self.executor = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix="rollouts", initializer=distributed.exchange_on,
            initargs=([d for d in jax.devices() if d not in set(training)],))
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
        """The collector's state and the batch collected ahead, complete (waited for), as arrays holding every
        process's groups."""
        self.settle()
        ahead = None
        if self.in_flight is not None:
            step, future = self.in_flight
            ahead = {"step": step, **collection_to_arrays(future.result())}
        return {**self.collector.state_dict(), "ahead": ahead}

    def load_state_dict(self, state: dict) -> None:
        self.collector.load_state_dict(state)
        ahead = state.get("ahead")
        if ahead is not None:
            future: concurrent.futures.Future = concurrent.futures.Future()
            future.set_result(collection_from_arrays(ahead))
            self.in_flight = (ahead["step"], future)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        distributed.exchange_on(None)


# -- a collected batch as arrays (a checkpoint holds the batch collected ahead) --------------------------------


def collection_to_arrays(collection: Collection) -> dict[str, Any]:
    """The collection with every process's groups, in records order (gathered), its records and kept indices as
    arrays; its stats (summed over processes already) and each process's failure counts as JSON."""
    records = collection.records
    mine = batch_arrays.to_bytes(batch_arrays.groups_to_arrays(collection.mine))
    everyone = [batch_arrays.groups_from_arrays(batch_arrays.from_bytes(b)) for b in distributed.allgather_bytes(mine)]
    failures = [json.loads(b) for b in distributed.allgather_bytes(json.dumps(collection.failures).encode())]
    in_order = [everyone[q][i] for q, i in zip(records.owner, rank_within(records.owner))]
    return {"groups": batch_arrays.groups_to_arrays(in_order), "records": records._asdict(),
            "kept": collection.kept, "stats": dataclasses.asdict(collection.stats), "failures": failures}


def collection_from_arrays(saved: dict[str, Any]) -> Collection:
    """This process's share of a saved collection: the groups it held, on the same process count; on another, a
    contiguous share of the records, which then name it as their owner."""
    records = GroupRecords(**{name: np.asarray(x) for name, x in saved["records"].items()})
    failures = saved["failures"]
    if len(failures) != jax.process_count():
        owner = np.zeros(len(records.owner), np.int32)
        for q in range(jax.process_count()):
            owner[distributed.process_slice(len(owner), q)] = q
        records = records._replace(owner=owner)
        failures = [{} for _ in range(jax.process_count())]
    groups = batch_arrays.groups_from_arrays(saved["groups"])
    mine = [g for g, q in zip(groups, records.owner) if q == jax.process_index()]
    return Collection(mine, records, np.asarray(saved["kept"], np.int64), RolloutStats(**saved["stats"]),
                      dict(failures[jax.process_index()]))
