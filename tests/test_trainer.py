"""The training loop end to end on the tiny config: sample, verify, update, checkpoint, resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from rlve_jax.rl.batching import build_sequences

# A few-step version of configs/tiny.py: small batches, short responses, a warm start just long enough
# to teach the answer format (so groups have unequal rewards and the update runs).
FAST = [
    "--config.steps=4", "--config.warm_start.steps=40", "--config.warm_start.batch_size=8",
    "--config.rollout.prompts_per_step=2", "--config.rollout.samples_per_prompt=4",
    "--config.rollout.oversample_prompts=3", "--config.rollout.max_response_tokens=8",
    "--config.rollout.max_rounds=2",  # bounds a step's sampling (the shipped 8 rounds are for 120 real steps)
    "--config.train.micro_batch_size=4", "--config.checkpoint.every=1", "--config.log.progress=False",
    "--config.log.tensorboard=False",
]
REPO = Path(__file__).resolve().parents[1]


def run_main(workdir, *extra, wait=True):
    cmd = [sys.executable, "-m", "rlve_jax.main", "--config=configs/tiny.py", f"--workdir={workdir}", *FAST, *extra]
    env = {**os.environ, "XLA_FLAGS": "", "JAX_PLATFORMS": "cpu"}
    if wait:
        result = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
        assert result.returncode == 0, result.stderr[-4000:]
        return result
    return subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def final_state(workdir):
    """Parameters and scheduler state of the last checkpoint."""
    import orbax.checkpoint as ocp

    checkpoints = Path(workdir) / "checkpoints"
    step = max(int(p.name) for p in checkpoints.iterdir() if p.name.isdigit())
    with ocp.CheckpointManager(checkpoints.absolute()) as manager:
        restored = manager.restore(step, args=ocp.args.Composite(params=ocp.args.StandardRestore(),
                                                                 meta=ocp.args.JsonRestore()))
    import jax

    leaves = [np.asarray(x) for x in jax.tree.leaves(restored["params"])]
    return step, leaves, restored["meta"]["scheduler"]


def pool_stats(workdir):
    """The pool counters in the last checkpoint's record."""
    checkpoints = Path(workdir) / "checkpoints"
    step = max(int(p.name) for p in checkpoints.iterdir() if p.name.isdigit())
    return json.loads((checkpoints / str(step) / "meta" / "metadata").read_text())["pool_stats"]


def test_build_sequences_right_pads_and_masks():
    batch = build_sequences([[1, 2, 3], [4]], [[5, 6], [7, 8, 9]], pad_id=0,
                            sampler_logprobs=[[-0.5, -0.25], [-1.0, -2.0, -3.0]], advantages=[1.0, -1.0], rows=3)
    assert batch.tokens.shape == (3, 16)
    assert batch.tokens[0, :5].tolist() == [1, 2, 3, 5, 6] and batch.tokens[1, :4].tolist() == [4, 7, 8, 9]
    assert batch.mask[0].sum() == 5 and batch.mask[1].sum() == 4 and batch.mask[2].sum() == 0
    assert batch.loss_mask[0, 3:5].tolist() == [1, 1] and batch.loss_mask[0].sum() == 2
    assert batch.sampler_logprobs[1, 1:4].tolist() == [-1.0, -2.0, -3.0]
    assert batch.advantages.tolist() == [1.0, -1.0, 0.0]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("uninterrupted")
    result = run_main(workdir)
    return workdir, result


def test_tiny_run_end_to_end(uninterrupted):
    workdir, result = uninterrupted
    records = [json.loads(line) for line in (workdir / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in records if r["kind"] == "train"]
    assert [r["step"] for r in train] == [0, 1, 2, 3, 4]  # step 0: the initial difficulty ladder
    for key in ("rollout/reward", "rollout/effective_prompt_ratio", "time/generate", "time/verify", "time/train",
                "difficulty/IntegerFactorizationCounting", "rollout/truncation_rate", "train/loss",
                "train/sampler_logprob_gap"):
        assert key in train[-1], key
    assert train[-1]["rollout/peak_cache_mib"] > 0 and train[-1]["time/reshard"] >= 0
    assert train[-1]["train/learning_rate"] == pytest.approx(1e-3)  # configs/tiny.py, no warm-up
    assert train[-1]["train/grad_norm"] > 0
    assert 0 < train[-1]["rollout/entropy"] < np.log(512)  # nats per token, below the uniform's (micro vocab)
    assert all(train[-1][f"rollout/verifier_{k}"] == 0 for k in ("timeouts", "crashes", "errors"))
    for r in train[1:]:  # the paper's ratio counts every informative group, the kept share stops at the batch
        assert r["rollout/effective_prompt_ratio"] >= r["rollout/kept_ratio"] - 1e-9
    assert any(r["kind"] == "warm_start" for r in records)
    assert (workdir / "final_levels.txt").exists()
    assert {p.name for p in (workdir / "plots").iterdir()} >= {"difficulty.png", "reward.png",
                                                               "effective_prompt_ratio.png"}
    assert "IntegerFactorizationCounting" in result.stdout


def test_resume_after_sigkill_matches_uninterrupted_run(uninterrupted, tmp_path):
    reference_dir, _ = uninterrupted
    # A killed attempt before the first checkpoint left stale records: a run without a checkpoint drops them.
    (tmp_path / "metrics.jsonl").write_text('{"step": 0, "kind": "warm_start", "warm_start/loss": 9.0}\n' * 40)
    process = run_main(tmp_path, wait=False)
    checkpoint_two = tmp_path / "checkpoints" / "2"
    deadline = time.time() + 900
    while not checkpoint_two.exists():
        assert process.poll() is None, process.stderr.read().decode()[-4000:]
        assert time.time() < deadline
        time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    process.wait()
    with (tmp_path / "metrics.jsonl").open("a") as f:  # a torn last record (full disk, host crash)
        f.write('{"step": 3, "kind": "tra')
    run_main(tmp_path)  # resumes from the latest complete checkpoint
    step, params, scheduler = final_state(tmp_path)
    ref_step, ref_params, ref_scheduler = final_state(reference_dir)
    assert step == ref_step == 4
    assert scheduler == ref_scheduler
    for a, b in zip(params, ref_params):
        np.testing.assert_array_equal(a, b)
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if r["kind"] == "train"] == [0, 1, 2, 3, 4]  # no duplicates, no torn line
    assert sum(r["kind"] == "warm_start" for r in records) == 40 and "warm_start/loss" in records[-6]
    assert not any(r.get("warm_start/loss") == 9.0 for r in records)
    assert pool_stats(tmp_path) == pool_stats(reference_dir)  # the pool's counters were restored too


def test_sigterm_saves_the_current_step_and_exits(tmp_path):
    process = run_main(tmp_path, "--config.steps=50", "--config.checkpoint.every=1000", wait=False)
    metrics = tmp_path / "metrics.jsonl"
    deadline = time.time() + 900
    while not (metrics.exists() and '"step": 2, "kind": "train"' in metrics.read_text()):
        assert process.poll() is None, process.stderr.read().decode()[-4000:]
        assert time.time() < deadline
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=300) == 0
    last = max(json.loads(line)["step"] for line in metrics.read_text().splitlines())
    step, _, _ = final_state(tmp_path)
    assert 2 <= step == last < 50  # saved the step it was on, not only the warm start's step 0
