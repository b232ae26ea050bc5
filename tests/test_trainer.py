"""The training loop: the Trainer built from fakes (hooks and their periods, the batch source's calls, the train
state's one owner, start, resume, stop), then end to end on the tiny config: sample, verify, update, checkpoint,
resume."""

import json
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest

from rlve_jax import trainer as trainer_lib
from rlve_jax.gym.pool import PoolStats
from rlve_jax.gym.scheduler import AdaptiveScheduler
from rlve_jax.rl.batching import build_sequences
from rlve_jax.rl.collector import Collection, GroupRecords
from rlve_jax.rl.rollout import RolloutStats
from rlve_jax.runtime.checkpoint import TrainState
from rlve_jax.runtime.metrics import MetricsWriter, StepLog

# ---------------------------------------------------------------------------
# The Trainer from fakes


def collection(accuracy: float) -> Collection:
    """One kept group of 2 responses at level 0 of environment "A"."""
    one = lambda dtype, value, *shape: np.full((1, *shape), value, dtype)  # noqa: E731
    records = GroupRecords(one(np.int32, 0), one(np.int32, 0), one(np.int32, 0), one(np.int32, 5), one(bool, True),
                           one(bool, True), one(float, accuracy, 2), one(bool, accuracy == 1.0, 2), one(bool, True, 2),
                           one(np.int32, 3, 2), one(bool, False, 2))
    return Collection([], records, np.array([0]), RolloutStats(drawn_groups=1, kept_groups=1), {})


class FakeBatches:
    """A batch source that records what the Trainer asks of it."""

    def __init__(self):
        self.calls, self.state = [], {}

    def take(self, step, params):
        self.calls.append(("take", step, params))
        return collection(1.0)

    def ahead(self, step, params, version):
        self.calls.append(("ahead", step, params, version))

    def settle(self):
        self.calls.append(("settle",))

    def seconds(self):
        return {"time/wait_rollouts": 0.0}

    def state_dict(self):
        return {"taken": sum(c[0] == "take" for c in self.calls)}

    def load_state_dict(self, state):
        self.state = state

    def close(self):
        self.calls.append(("close",))


class FakeLearner:
    """The train state's owner: each update adds one to the parameters (a number) and counts the step."""

    def __init__(self, params):
        self.policy = types.SimpleNamespace(params=params)
        self.state = TrainState(params, "opt", 0)

    def start(self, params):
        self.state = self.state._replace(params=params, step=0)

    def update(self, collection):
        self.state = TrainState(self.state.params + 1, "opt", self.state.step + 1)
        return {"train/loss": 0.5}


class FakeCheckpointer:
    def __init__(self, saved=None):
        self.saved = dict(saved or {})

    def latest_step(self):
        return max(self.saved, default=None)

    def save(self, state, meta):
        self.saved[state.step] = (state, meta)

    def restore(self, step, like):
        return self.saved[step]

    def close(self):
        pass


def fake_trainer(tmp_path, steps, checkpointer=None, warm_start=None, every=100):
    tmp_path.mkdir(exist_ok=True)
    metrics = MetricsWriter(tmp_path, tensorboard=False)
    trainer = trainer_lib.Trainer(
        env_names=["A"], scheduler=AdaptiveScheduler(["A"], min_samples=2), pool=types.SimpleNamespace(
            stats=PoolStats(), close=lambda: None), batches=FakeBatches(), learner=FakeLearner(10),
        checkpointer=checkpointer or FakeCheckpointer(), metrics=metrics, workdir=tmp_path, steps=steps,
        run_config={"seed": 0}, warm_start=warm_start)
    trainer.add_hook(StepLog(metrics, steps, progress=False))
    trainer.add_hook(lambda info: trainer.save(), every=every, at_last=True)
    return trainer


@pytest.fixture
def reports(monkeypatch):
    """The final reports the runs print (the table and the plots are not drawn)."""
    done = []
    monkeypatch.setattr(trainer_lib, "report", lambda *args: done.append(args))
    return done


def test_hooks_run_at_their_periods_in_order_and_see_the_state_and_the_metrics(tmp_path, reports):
    trainer, seen = fake_trainer(tmp_path, steps=7), []
    trainer.hooks.insert(0, trainer_lib.Hook(lambda info: {"eval/accuracy": info.state.params / 100}, 3,
                                             exclusive=True))
    trainer.add_hook(lambda info: seen.append((info.step, info.last, info.metrics.get("eval/accuracy"))), 2,
                     at_last=True)
    trainer.run()
    assert seen == [(2, False, None), (4, False, None), (6, False, 0.16), (7, True, None)]
    assert [c for c in trainer.batches.calls if c[0] == "settle"] == [("settle",)] * 2  # before steps 3 and 6
    assert sorted(trainer.checkpointer.saved) == [0, 7]  # the start and the last step (period 100)
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records] == list(range(8))
    assert records[3]["eval/accuracy"] == 0.13 and "eval/accuracy" not in records[4]  # an earlier hook's metrics
    assert records[1]["train/loss"] == 0.5 and records[1]["difficulty/A"] == 1  # 2 right answers at h: promoted
    assert len(reports) == 1


def test_the_batch_source_is_asked_with_the_learners_weights_and_versions(tmp_path, reports):
    trainer = fake_trainer(tmp_path, steps=3)
    trainer.run()
    assert trainer.batches.calls == [
        ("take", 0, 10), ("ahead", 1, 10, 0), ("ahead", 1, 11, 1),  # before the update (lag 1), after it (lag 0)
        ("take", 1, 11), ("ahead", 2, 11, 1), ("ahead", 2, 12, 2),
        ("take", 2, 12)]  # nothing ahead of the last step
    assert trainer.learner.state.step == trainer.step == 3


def test_a_fresh_start_warm_starts_the_policys_weights_and_saves_step_0(tmp_path, reports):
    trainer = fake_trainer(tmp_path, steps=2, warm_start=lambda params: params * 2)
    trainer.run()
    state, meta = trainer.checkpointer.saved[0]
    assert state == TrainState(20, "opt", 0)  # the warm start's parameters, returned to the learner
    assert trainer.learner.state == TrainState(22, "opt", 2) and trainer.policy.params == 10
    assert meta["collector"] == {"taken": 0} and meta["scheduler"]["upper"] == {"A": 0}
    assert trainer.checkpointer.saved[2][1]["collector"] == {"taken": 2}  # the batch source's state, saved with it


def test_a_resume_restores_the_train_state_and_the_parts_state(tmp_path, reports):
    first = fake_trainer(tmp_path / "a", steps=2)
    first.run()
    first.checkpointer.saved[2][1]["scheduler"]["upper"]["A"] = 5  # a level no fresh scheduler reaches in 2 steps
    resumed = fake_trainer(tmp_path / "b", steps=4, checkpointer=FakeCheckpointer(first.checkpointer.saved),
                           warm_start=lambda params: pytest.fail("a resumed run is not warm-started"))
    resumed.run()
    assert resumed.batches.state == {"taken": 2}
    assert resumed.batches.calls[0] == ("take", 2, 12)  # the restored state's weights, its step
    assert resumed.learner.state == TrainState(14, "opt", 4)
    assert resumed.scheduler.upper == {"A": 5}  # the restored scheduler (level-0 groups do not count at h = 5)


def test_a_stop_request_saves_the_next_step_and_ends_the_run(tmp_path, reports):
    trainer = fake_trainer(tmp_path, steps=50)
    trainer.add_hook(lambda info: os.kill(os.getpid(), signal.SIGTERM) if info.step == 2 else None)
    trainer.run()
    assert trainer.step == 3 and sorted(trainer.checkpointer.saved) == [0, 3] and len(reports) == 1


# ---------------------------------------------------------------------------
# End to end

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
    assert train[-1]["train/learning_rate"] == pytest.approx(3e-4)  # configs/tiny.py, no warm-up
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
