"""One-step-off-policy training on split meshes (mesh.rollout_devices, train.max_staleness): 8 forced CPU devices,
2 generating and 6 training. The runs are tests/async_runs_for_tests.py's, in one subprocess (one compilation
cache for all of them)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rlve_jax import defaults
from rlve_jax.rl.async_collector import collection_from_arrays, collection_to_arrays
from rlve_jax.runtime import sharding

REPO = Path(__file__).resolve().parents[1]
STEPS = 3
WALL_CLOCK = ("rollout/generate_tokens_per_s",)  # a rate outside time/: differs between any two runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("async_runs")
    env = {**os.environ, "XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"}
    result = subprocess.run([sys.executable, str(REPO / "tests" / "async_runs_for_tests.py"), str(out)], cwd=REPO,
                            env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-4000:]
    return out


def train_records(workdir: Path) -> list[dict]:
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    return [r for r in records if r["kind"] == "train" and r["step"] > 0]


def comparable(record: dict) -> dict:
    return {k: v for k, v in record.items() if not k.startswith("time/") and k not in WALL_CLOCK}


def final_params(workdir: Path) -> list[np.ndarray]:
    from rlve_jax.runtime.checkpoint import load_on_one_device

    params, _ = load_on_one_device(workdir, STEPS)
    import jax

    return [np.asarray(x) for x in jax.tree.leaves(params)]


def test_staleness_0_reproduces_the_synchronous_loop(runs):
    sync, stale0 = train_records(runs / "sync"), train_records(runs / "stale0")
    assert [r["step"] for r in sync] == [r["step"] for r in stale0] == list(range(1, STEPS + 1))
    assert all("train/loss" in r for r in sync)  # every step updated: the comparison covers the learner
    for a, b in zip(sync, stale0):
        assert comparable(a) == comparable(b)
    assert all(r["rollout/staleness_max"] == 0 for r in stale0)
    for a, b in zip(final_params(runs / "sync"), final_params(runs / "stale0")):
        np.testing.assert_array_equal(a, b)


def test_staleness_1_lags_by_one_update(runs):
    stale0, stale1 = train_records(runs / "stale0"), train_records(runs / "stale1")
    assert [r["step"] for r in stale1] == list(range(1, STEPS + 1))
    # The first batch is drawn with the warm-started weights; every later one while the previous update runs,
    # with the weights before it: each token one update old.
    assert [r["rollout/staleness_max"] for r in stale1] == [0] + [1] * (STEPS - 1)
    assert [r["rollout/staleness_mean"] for r in stale1] == [0.0] + [1.0] * (STEPS - 1)
    assert comparable(stale1[0]) == comparable(stale0[0])  # the same first batch and update
    assert stale1[1]["rollout/entropy"] != stale0[1]["rollout/entropy"]  # other weights drew the second batch
    # Weights sent to the rollout mesh for every batch but one: the last step starts no batch past the run's end.
    assert [r["time/weight_transfer"] > 0 for r in stale1] == [True] * (STEPS - 1) + [False]


def test_resume_trains_on_the_checkpointed_batch_ahead(runs):
    """stale1's checkpoint of step 2 holds step 3's batch (collected with the weights of step 1, during the
    second update): the resumed run trains on it and ends where the uninterrupted run did."""
    meta = json.loads((runs / "stale1" / "checkpoints" / str(STEPS - 1) / "meta" / "metadata").read_text())
    assert meta["collector"]["ahead"]["step"] == STEPS - 1
    assert comparable(train_records(runs / "resumed1")[-1]) == comparable(train_records(runs / "stale1")[-1])
    for a, b in zip(final_params(runs / "resumed1"), final_params(runs / "stale1")):
        np.testing.assert_array_equal(a, b)


def test_the_batch_ahead_is_saved_as_arrays_and_survives_them_exactly(runs):
    from rlve_jax.runtime.checkpoint import ARRAY, Checkpointer

    checkpointer = Checkpointer(runs / "stale1")
    record = checkpointer.restore_meta(STEPS - 1)
    assert ARRAY in record["collector"]["ahead"]["groups"]["tokens"]["values"]  # an orbax array, not JSON
    saved = checkpointer.restore_meta(STEPS - 1, arrays=True)["collector"]["ahead"]
    checkpointer.close()
    collection = collection_from_arrays(saved)
    assert collection.records.reward.dtype == np.float64 and collection.mine[0].sampler_logprobs[0].dtype == np.float32
    again = collection_to_arrays(collection)
    for name in ("tokens", "logprobs", "prompt", "header"):
        for part in ("values", "lengths"):
            np.testing.assert_array_equal(again["groups"][name][part], saved["groups"][name][part])
            assert again["groups"][name][part].dtype == saved["groups"][name][part].dtype
    assert {k: v.tolist() for k, v in again["records"].items()} == {k: v.tolist() for k, v in saved["records"].items()}
    assert again["stats"] == saved["stats"] and again["kept"].tolist() == saved["kept"].tolist()


def mesh_error(**mesh) -> str:
    sizes = {"data": 1, "fsdp": -1, "tensor": 1, "sampler_tensor": 1, "rollout_devices": 2, **mesh}
    with pytest.raises(ValueError) as error:
        sharding.meshes(sharding.MeshSettings(**sizes))
    return str(error.value)


def test_split_meshes_and_their_one_line_errors():
    import jax

    train, rollout = sharding.meshes(sharding.MeshSettings(1, -1, 1, 1, rollout_devices=2))
    assert dict(train.shape) == {"data": 1, "fsdp": 6, "tensor": 1} and dict(rollout.shape) == {
        "data": 1, "fsdp": 2, "tensor": 1}
    assert list(train.devices.flat) == jax.devices()[:6] and list(rollout.devices.flat) == jax.devices()[6:]
    messages = [mesh_error(rollout_devices=8), mesh_error(rollout_devices=9), mesh_error(fsdp=4),
                mesh_error(tensor=4), mesh_error(sampler_tensor=4)]
    assert "leaves no training device: each process has 8 devices" in messages[0]
    assert "does not use all 6 devices left for training by mesh.rollout_devices" in messages[2]
    assert "mesh.sampler_tensor=4 (0: mesh.tensor) must divide mesh.rollout_devices=2" in messages[4]
    assert all("\n" not in m for m in messages)
    c = defaults.base_config()
    c.mesh.rollout_devices, c.distributed.num_processes = 2, 2
    defaults.validate(c)  # each process's last 2 devices generate (tests/test_distributed.py runs it)
    c.train.max_staleness = 2
    with pytest.raises(defaults.ConfigError, match=r"train.max_staleness=2 must be an int >= 0 <= 1"):
        defaults.validate(c)
