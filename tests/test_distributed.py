"""Scale-out: two CPU processes (jax.distributed, gloo) train like one; the helpers they rely on."""

import json
import os
import re
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


def test_two_processes_train_like_one(tmp_path):
    """Same global batch: 2 processes x 1 device vs 1 process x 2 devices (the same training mesh);
    then both resume on 1 process for a third step."""
    port = free_port()
    two = [launch(tmp_path / "two", 1, "--config.distributed.num_processes=2", f"--config.distributed.process_id={i}",
                  f"--config.distributed.coordinator_address=127.0.0.1:{port}") for i in range(2)]
    one = launch(tmp_path / "one", 2)
    logs = []
    for process in [*two, one]:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err[-4000:]
        logs.append(err)
    # Both processes checked at every save that they hold the same scheduler state and sampler weights.
    syncs = [re.findall(r"in sync at step (\d+): scheduler state (\w+), sampler weights (\w+)", log) for log in logs[:2]]
    assert syncs[0] == syncs[1] and [s[0] for s in syncs[0]] == ["0", "1", "2"]
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
    resumed = [launch(tmp_path / run, 2, "--config.steps=3") for run in ("two", "one")]
    for process in resumed:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0 and "resumed from step 2" in err, err[-4000:]
    (params_two, meta_two), (params_one, meta_one) = checkpoint(tmp_path / "two", 3), checkpoint(tmp_path / "one", 3)
    assert meta_two["scheduler"] == meta_one["scheduler"] and meta_two["step"] == 3
    for a, b in zip(params_two, params_one):
        np.testing.assert_allclose(a, b, rtol=0, atol=5e-5)
