"""Reliability: config domains, metrics that survive torn lines and resumes, the warm start's batches.

The tiny run's restart (stale records, a torn line, restored pool counters) is checked end to end
in tests/test_trainer.py::test_resume_after_sigkill_matches_uninterrupted_run."""

import json
import math
import struct
import types
from pathlib import Path

import pytest

from envs_for_tests import EchoEnv, SlowGenerateEnv
from rlve_jax import defaults
from rlve_jax.cli import flatten_keys
from rlve_jax.gym.env import ANSWER_TAGS, Problem
from rlve_jax.runtime.metrics import MetricsWriter, read_records
from rlve_jax.gym.pool import EnvPool, FailureBudgetExceeded
from rlve_jax.rl.warm_start import problems_with_references

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# Config validation


def leaf_keys(config):
    return [k for k in flatten_keys(config) if not hasattr(eval_key(config, k), "items")]


def eval_key(config, key):
    for part in key.split("."):
        config = config[part]
    return config


def test_every_key_has_a_domain_and_every_config_file_is_in_it():
    assert sorted(leaf_keys(defaults.base_config())) == sorted(defaults.DOMAINS)
    for path in sorted((REPO / "configs").rglob("[!_]*.py")):  # every config file, not the package's __init__
        defaults.validate(defaults.load_config_file(path))


@pytest.mark.parametrize("key, value, expected", [
    ("optim.lr", math.nan, "optim.lr=nan must be a finite number > 0"),
    ("optim.lr", -0.5, "optim.lr=-0.5 must be a finite number > 0"),
    ("steps", -5, "steps=-5 must be an int >= 0"),
    ("train.micro_batch_size", 0, "train.micro_batch_size=0 must be an int >= 1"),
    ("env.workers", -1, "env.workers=-1 must be an int >= 0"),
    ("env.timeout_s", 0.0, "env.timeout_s=0.0 must be a finite number > 0"),
    ("env.max_failure_share", 1.5, "env.max_failure_share=1.5 must be a finite number >= 0 and <= 1"),
    ("rollout.top_p", 0.0, "rollout.top_p=0.0 must be a finite number > 0 and <= 1"),
    ("model.dtype", "fp8", "model.dtype='fp8' must be one of 'float32', 'bfloat16', 'float16'"),
    ("eval.suite", "all", "eval.suite='all' must be one of 'heldout', 'benchmarks'"),
    ("train.micro_batch_size", 3, "train.micro_batch_size=3 must divide the batch of 2048 sequences"),
    ("scheduler.static_lo", 9, "scheduler.static_lo=9 must be <= scheduler.static_hi=4"),
])
def test_bad_values_are_named_in_one_line(key, value, expected):
    config = defaults.base_config()
    parent, _, leaf = key.rpartition(".")
    (eval_key(config, parent) if parent else config)[leaf] = value
    with pytest.raises(defaults.ConfigError) as error:
        defaults.validate(config)
    assert expected in str(error.value) and "\n" not in str(error.value)


def test_every_bad_key_is_listed_at_once():
    config = defaults.base_config()
    config.steps, config.optim.lr, config.env.workers = -5, math.nan, -1
    message = str(pytest.raises(defaults.ConfigError, defaults.validate, config).value)
    assert message.count("must be") == 3


# ---------------------------------------------------------------------------
# Metrics


def write_lines(path, *records, torn=""):
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + torn)


def test_a_torn_last_line_is_skipped_and_dropped_on_resume(tmp_path):
    write_lines(tmp_path / "metrics.jsonl", {"step": 0, "kind": "train"}, {"step": 1, "kind": "train", "a": 1.0},
                {"step": 2, "kind": "train"}, torn='{"step": 3, "kind": "tr')
    assert [r["step"] for r in read_records(tmp_path)] == [0, 1, 2]
    writer = MetricsWriter(tmp_path, tensorboard=False)
    writer.resume_at(1)
    writer.write(2, {"a": 2.0})
    assert [(r["step"], r.get("a")) for r in read_records(tmp_path)] == [(0, None), (1, 1.0), (2, 2.0)]
    assert json.loads((tmp_path / "metrics.jsonl").read_text().splitlines()[-1])["a"] == 2.0  # no glued line


def test_a_fresh_start_forgets_a_killed_attempt(tmp_path):
    write_lines(tmp_path / "metrics.jsonl", *[{"step": 0, "kind": "warm_start"}] * 40)
    (tmp_path / "tensorboard").mkdir()
    (tmp_path / "tensorboard" / "events.out.tfevents.stale").write_bytes(b"old")
    writer = MetricsWriter(tmp_path, tensorboard=True)
    writer.start_fresh()
    writer.write(0, {"warm_start/loss": 1.0, "warm_start/step": 1}, kind="warm_start")
    writer.close()
    assert len(read_records(tmp_path)) == 1
    assert not (tmp_path / "tensorboard" / "events.out.tfevents.stale").exists()


def tensorboard_events(directory):
    """(step, tag or 'START') of every event in a directory's event files, in write order."""
    from tensorboardX.proto.event_pb2 import Event
    from tensorboardX.proto.event_pb2 import SessionLog

    events = []
    for path in sorted(Path(directory).glob("events.out.tfevents.*")):
        data, offset = path.read_bytes(), 0
        while offset < len(data):  # TFRecord: u64 length, u32 crc, payload, u32 crc
            (length,) = struct.unpack("<Q", data[offset:offset + 8])
            event = Event.FromString(data[offset + 12:offset + 12 + length])
            offset += 12 + length + 4
            if event.HasField("session_log") and event.session_log.status == SessionLog.START:
                events.append((event.step, "START"))
            for value in event.summary.value:
                events.append((event.step, value.tag))
    return events


def test_tensorboard_purges_the_steps_a_resume_redoes(tmp_path):
    writer = MetricsWriter(tmp_path, tensorboard=True)
    writer.start_fresh()
    for step in range(4):
        writer.write(step, {"loss": float(step)})
    writer.close()
    resumed = MetricsWriter(tmp_path, tensorboard=True)
    resumed.resume_at(2)  # steps 3.. are redone: TensorBoard drops the old points at steps >= 3
    resumed.write(3, {"loss": 30.0})
    resumed.close()
    events = tensorboard_events(tmp_path / "tensorboard")
    assert (3, "START") in events  # the purge marker TensorBoard honours (SessionLog.START at step 3)
    after_marker = events[events.index((3, "START")):]
    assert [e for e in after_marker if e[1] == "loss"] == [(3, "loss")]


# ---------------------------------------------------------------------------
# Warm start batches


def envs_with_references():
    with_reference = types.SimpleNamespace(reference=lambda problem: str(problem.data["value"]))
    return {"TestOnlyEcho": with_reference, "TestOnlySlowGenerate": with_reference}


def draws_with_failures():
    """Every third draw hangs (SlowGenerateEnv at level 1)."""
    seed = 0
    while True:
        yield ("TestOnlySlowGenerate", 1, seed) if seed % 3 == 2 else ("TestOnlyEcho", 0, seed)
        seed += 1


def test_warm_start_counts_failures_and_never_builds_a_short_batch():
    with EnvPool(workers=0, timeout_s=0.2, extra_envs=[EchoEnv(), SlowGenerateEnv()]) as pool:
        problems, failed = problems_with_references(pool, envs_with_references(), draws_with_failures(), 6, 0.5,
                                                    "warm-start step 1")
        assert len(problems) == 6 and None not in problems and failed == 2  # 2 of 6 failed; 2 refills
        with pytest.raises(FailureBudgetExceeded, match="warm-start step 1: 2 of 6 generations failed"):
            problems_with_references(pool, envs_with_references(), draws_with_failures(), 6, 0.2,
                                     "warm-start step 1")


# ---------------------------------------------------------------------------
# Environments that broke at high levels


def tagged(text):
    return f"<answer>{text}</answer>"


def test_long_integer_answers_are_scored_not_rejected():
    from rlve_jax.gym import registry

    env = registry.make("SmallestBinaryMultiple")
    problem = env.generate(0, 0)
    assert env.verify(problem, tagged("2" * 4400), ANSWER_TAGS).reward == -0.5  # 4,400 digits: parsed, product not 0/1
    cinema = registry.make("Cinema")
    problem = cinema.generate_any_level(15, 0)  # a reduced fraction with thousands of digits
    answer = cinema.reference(problem)
    assert len(answer) > 4300 and cinema.verify(problem, tagged(answer), ANSWER_TAGS).accuracy
    assert problem.to_json()  # long integers serialise too
    counting = registry.make("NoDoubleTripleCounting")
    problem = counting.generate_any_level(20, 0)
    assert len(counting.reference(problem)) > 4300
    assert Problem.from_json(problem.to_json()) == problem
    # Elsewhere Python's guard stays: a 100,000-digit answer is a format error, not seconds of arithmetic.
    sorting = registry.make("Sorting")
    assert sorting.verify(sorting.generate(0, 0), tagged("9" * 100_000), ANSWER_TAGS).reason == "format"


def test_kth_binary_tree_has_no_recursion_limit():
    from rlve_jax.gym.environments.kth_binary_tree import catalan, tree_string

    assert [catalan(n) for n in range(6)] == [1, 1, 2, 5, 14, 42]
    assert tree_string(3, 0) == "X(X(X))" and tree_string(3, 4) == "((X)X)X"
    assert tree_string(3000, 0) == "X(" * 2999 + "X" + ")" * 2999  # a path 3,000 nodes deep
