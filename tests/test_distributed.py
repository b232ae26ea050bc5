"""Scale-out: two CPU processes (jax.distributed, gloo) train like one, with partial rollouts and with split meshes
(one-step-off-policy), and resume on either process count; the helpers they rely on."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from rlve_jax.models import convert
from rlve_jax.runtime import distributed, sharding
from rlve_jax.runtime.checkpoint import load_on_one_device
from rlve_jax.defaults import CONFIGS, base_config, experiment, load_config_file
from rlve_jax.cli import flatten_keys
from test_trainer import FAST, REPO


@pytest.mark.parametrize("preset", sorted(p.stem for p in (CONFIGS / "mesh").glob("[!_]*.py")))
def test_mesh_presets_set_only_known_keys(preset):
    config = load_config_file(CONFIGS / "mesh" / f"{preset}.py", "c16")
    assert set(flatten_keys(config)) == set(flatten_keys(base_config()))  # a misspelt key would be a new one
    assert config.env.collection == experiment("c16").env.collection
    assert config.rollout.partial_rollouts  # the paper's, on every preset (the multi-host ones included)
    shape = (config.mesh.data, config.mesh.fsdp, config.mesh.tensor)
    if -1 in shape or np.prod(shape) == 8:  # the presets that fit the 8 test devices
        mesh = sharding.make_mesh(*shape)
        assert config.train.micro_batch_size % (mesh.shape["data"] * mesh.shape["fsdp"]) == 0


def test_sampler_mesh_keeps_each_process_block():
    mesh = sharding.make_mesh(data=2, fsdp=2, tensor=2)
    own = sharding.sampler_mesh(mesh, 2)  # one process: all 8 devices, the same tensor pairs
    assert dict(own.shape) == {"data": 1, "fsdp": 4, "tensor": 2}
    np.testing.assert_array_equal(own.devices.reshape(-1, 2), mesh.devices.reshape(-1, 2))
    with pytest.raises(ValueError, match="sampler_tensor=3"):
        sharding.sampler_mesh(mesh, 3)


def test_sampler_state_is_a_full_copy_on_the_sampler_mesh(hf_qwen3):
    mesh = sharding.make_mesh(data=1, fsdp=4, tensor=2)
    state = nnx.state(convert.load_hf(hf_qwen3[0], mesh=mesh))
    for tensor in (2, 1, 4):
        sampler_mesh = sharding.sampler_mesh(mesh, tensor)
        copy = sharding.sampler_state(state, mesh, sampler_mesh)
        for x, y in zip(jax.tree.leaves(state), jax.tree.leaves(copy)):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
            assert y.sharding.mesh == sampler_mesh and "fsdp" not in str(y.sharding.spec)
        assert int(sharding.fingerprint(copy)) == int(sharding.fingerprint(state))
    leaves = jax.tree.leaves(state)
    first = leaves[0].reshape(-1)
    nudged = first.at[0].set(jnp.nextafter(first[0], jnp.inf))  # one element, one ulp
    assert int(sharding.fingerprint([nudged, *leaves[1:]])) != int(sharding.fingerprint([first, *leaves[1:]]))


def test_single_process_helpers():
    assert distributed.process_slice(5) == slice(0, 5) and distributed.is_primary()
    tree = {"a": np.array([0.1, 1e-300]), "b": np.array([[2**40]], np.int64), "c": np.array(True)}
    gathered = distributed.allgather(tree)  # float64 and int64 arrive exactly
    assert gathered["a"].shape == (1, 2) and gathered["a"][0, 1] == 1e-300 and gathered["b"][0, 0, 0] == 2**40
    assert distributed.any_process(True) and not distributed.any_process(False)
    distributed.assert_same("state", "a test")
    staging = NamedSharding(sharding.make_mesh(), P(sharding.BATCH))
    np.testing.assert_array_equal(sharding.process_rows(staging, 16)[0], np.arange(16))


# ---------------------------------------------------------------------------
# Two processes on localhost against one


def launch(workdir: Path, devices: int, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rlve_jax.main", "--config=configs/tiny.py", f"--workdir={workdir}", *FAST,
           "--config.steps=2", "--config.env.workers=0", *extra]
    env = {**os.environ, "XLA_FLAGS": f"--xla_force_host_platform_device_count={devices}", "JAX_PLATFORMS": "cpu"}
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def checkpoint(workdir: Path, step: int):
    params, meta = load_on_one_device(workdir, step)
    return [np.asarray(x) for x in jax.tree.leaves(params)], meta


ENTROPY_KEYS = ("rollout/entropy", "rollout/entropy_per_response")


def two_processes(workdir: Path, devices: int, *extra: str) -> list[subprocess.Popen]:
    port = free_port()
    return [launch(workdir, devices, "--config.distributed.num_processes=2", f"--config.distributed.process_id={i}",
                   f"--config.distributed.coordinator_address=127.0.0.1:{port}", *extra) for i in range(2)]


def finish(processes: list[subprocess.Popen]) -> list[str]:
    """Each process's log, once all exited 0."""
    logs = [process.communicate(timeout=900)[1] for process in processes]
    for process, log in zip(processes, logs):
        assert process.returncode == 0, "\n".join(line for line in log.splitlines() if "Gloo" not in line)[-4000:]
    return logs


def in_sync(logs: list[str]) -> list[str]:
    """The steps at which both processes checked they hold the same scheduler state and sampler weights."""
    syncs = [re.findall(r"in sync at step (\d+): scheduler state (\w+), sampler weights (\w+)", log) for log in logs]
    assert syncs[0] == syncs[1]
    return [s[0] for s in syncs[0]]


def test_two_processes_train_like_one(tmp_path):
    """Same global batch: 2 processes x 1 device vs 1 process x 2 devices (the same training mesh);
    then both resume on 1 process for a third step."""
    logs = finish([*two_processes(tmp_path / "two", 1), launch(tmp_path / "one", 2)])
    # Both processes checked at every save that they hold the same scheduler state and sampler weights.
    assert in_sync(logs[:2]) == ["0", "1", "2"]
    params_two, meta_two = checkpoint(tmp_path / "two", 2)
    params_one, meta_one = checkpoint(tmp_path / "one", 2)
    assert meta_two["scheduler"] == meta_one["scheduler"] and meta_two["step"] == 2
    for a, b in zip(params_two, params_one):  # sampling shapes differ per device: f32 rounding, not more
        np.testing.assert_allclose(a, b, rtol=0, atol=5e-5)
    records = [[json.loads(line) for line in (tmp_path / run / "metrics.jsonl").read_text().splitlines()]
               for run in ("two", "one")]
    assert len(records[0]) == len(records[1])
    for a, b in zip(*records):  # the same problems, samples, verdicts, levels and keep decisions
        same = [k for k in a if k.startswith(("rollout/", "accuracy/", "difficulty/", "scheduler/", "warm_start/"))
                and k not in ("rollout/generate_tokens_per_s", "rollout/peak_cache_mib", *ENTROPY_KEYS)]
        assert {k: a[k] for k in same} == {k: b[k] for k in same}
        for key in ENTROPY_KEYS:  # a float sum over sampled tokens, gathered in another order: rounding only
            if key in a:
                assert a[key] == pytest.approx(b[key], rel=1e-6)

    # The 2-process checkpoint resumes on 1 process and goes on like the 1-process run.
    logs = finish([launch(tmp_path / run, 2, "--config.steps=3") for run in ("two", "one")])
    assert all("resumed from step 2" in log for log in logs)
    (params_two, meta_two), (params_one, meta_one) = checkpoint(tmp_path / "two", 3), checkpoint(tmp_path / "one", 3)
    assert meta_two["scheduler"] == meta_one["scheduler"] and meta_two["step"] == 3
    for a, b in zip(params_two, params_one):
        np.testing.assert_allclose(a, b, rtol=0, atol=5e-5)


# ---------------------------------------------------------------------------
# Partial rollouts and split meshes on 2 processes x 4 devices


EIGHT = ("--config.train.micro_batch_size=8",)  # a step's 2 x 4 sequences over the 8 (or 4) training devices


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> Path:
    """The warm start once (step 0's checkpoint), on one process: every run below resumes a copy of it."""
    workdir = tmp_path_factory.mktemp("warm")
    finish([launch(workdir, 8, "--config.steps=0", *EIGHT)])
    return workdir


def copy_at(source: Path, target: Path, step: int) -> Path:
    """A copy of a workdir holding its checkpoints up to `step` (a resume continues from there)."""
    shutil.copytree(source, target)
    for checkpoint in (target / "checkpoints").iterdir():
        if checkpoint.name.isdigit() and int(checkpoint.name) > step:
            shutil.rmtree(checkpoint)
    return target


def train_records(workdir: Path) -> list[dict]:
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    return [r for r in records if r["kind"] == "train" and r["step"] > 0]


def assert_same_run(a: Path, b: Path, exact: bool = False) -> None:
    """The same problems, samples, verdicts, levels and keep decisions; parameters within f32 rounding (or
    bit-equal)."""
    records = [train_records(a), train_records(b)]
    assert [r["step"] for r in records[0]] == [r["step"] for r in records[1]]
    for x, y in zip(*records):
        same = [k for k in x if k.startswith(("rollout/", "accuracy/", "difficulty/", "scheduler/"))
                and k not in ("rollout/generate_tokens_per_s", "rollout/peak_cache_mib", *ENTROPY_KEYS)]
        assert {k: x[k] for k in same} == {k: y[k] for k in same}
        for key in ENTROPY_KEYS:
            assert x[key] == pytest.approx(y[key], rel=1e-6)
    step = records[0][-1]["step"]
    (params_a, meta_a), (params_b, meta_b) = checkpoint(a, step), checkpoint(b, step)
    assert meta_a["scheduler"] == meta_b["scheduler"]
    for x, y in zip(params_a, params_b):
        if exact:
            np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=5e-5)


PARTIAL = ("--config.rollout.partial_rollouts=True", "--config.rollout.segment_steps=1", "--config.steps=3",
           "--config.checkpoint.keep=10", *EIGHT)


def test_partial_rollouts_on_two_processes_carry_their_rows_and_resume_on_one(tmp_path, warm):
    """Each process carries the unfinished rows it generated; the stop, keep and carry decisions are the same on
    both and on one process (1 x 8 devices: the same training mesh); the checkpoint holds both processes' carried
    rows, and a resume from it on one process goes on like the two-process run."""
    two, one = copy_at(warm, tmp_path / "two", 0), copy_at(warm, tmp_path / "one", 0)
    logs = finish([*two_processes(two, 4, *PARTIAL), launch(one, 8, *PARTIAL)])
    assert in_sync(logs[:2]) == ["1", "2", "3"]
    carried = {}  # step -> the process holding each carried group
    for step in (1, 2, 3):
        owner = json.loads((two / "checkpoints" / str(step) / "meta" / "metadata").read_text())["collector"][
            "carried_owner"]
        carried[step] = owner["shape"][0]
    assert max(carried.values()) > 0, "no checkpoint with rows in flight: the test would prove nothing"
    assert max(r["rollout/staleness_max"] for r in train_records(two)) >= 1  # carried tokens trained a step later
    assert_same_run(two, one)
    k = min(step for step, n in carried.items() if n)
    resumed = copy_at(two, tmp_path / "resumed", k)
    finish([launch(resumed, 8, *PARTIAL)])
    assert_same_run(resumed, two)


SPLIT = ("--config.train.max_staleness=1", "--config.steps=2", "--config.checkpoint.keep=10", *EIGHT)


def test_split_meshes_with_staleness_1_on_two_processes_resume_bit_equal(tmp_path, warm):
    """mesh.rollout_devices=2 per process: each process generates on its last 2 devices while the 4 others (2 per
    process) train; the same run as one process with 4 rollout devices beside 4 training ones; resumed on two
    processes from the checkpoint that holds the batch collected ahead, bit-equal."""
    two, one = copy_at(warm, tmp_path / "two", 0), copy_at(warm, tmp_path / "one", 0)
    logs = finish([*two_processes(two, 4, *SPLIT, "--config.mesh.rollout_devices=2"),
                   launch(one, 8, *SPLIT, "--config.mesh.rollout_devices=4")])
    assert in_sync(logs[:2]) == ["1", "2"]
    records = train_records(two)
    assert [r["rollout/staleness_max"] for r in records] == [0, 1]  # one update old after the first batch
    assert all("time/weight_transfer" in r for r in records) and records[0]["time/weight_transfer"] > 0
    assert_same_run(two, one)
    meta = json.loads((two / "checkpoints" / "1" / "meta" / "metadata").read_text())
    assert meta["collector"]["ahead"]["step"] == 1  # the second batch, collected during the first update
    resumed = copy_at(two, tmp_path / "resumed", 1)
    finish(two_processes(resumed, 4, *SPLIT, "--config.mesh.rollout_devices=2"))
    assert_same_run(resumed, two, exact=True)
