"""log.wandb: the TensorBoard scalars and the config in a W&B run (offline), read back from its files."""

import glob
import json
import math
import struct
import sys
import time

import pytest

from rlve_jax.runtime import metrics
from rlve_jax.defaults import base_config, settings

wandb = pytest.importorskip("wandb")


@pytest.fixture
def offline(tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    for name in ("WANDB_CONFIG_DIR", "WANDB_CACHE_DIR", "WANDB_DATA_DIR"):
        monkeypatch.setenv(name, str(tmp_path / "wandb_home"))


def wandb_records(workdir, wait_s=60.0):
    """The protobuf records of the offline run file, once W&B's service has written its exit record
    (finish() returns before that)."""
    deadline = time.monotonic() + wait_s
    while True:
        records = list(read_run_file(workdir))
        if any(r.WhichOneof("record_type") == "exit" for r in records) or time.monotonic() > deadline:
            return records
        time.sleep(0.2)


def read_run_file(workdir):
    """W&B's header, then LevelDB-log chunks of protobuf records."""
    from wandb.proto import wandb_internal_pb2

    (path,) = glob.glob(str(workdir / "wandb" / "offline-run-*" / "run-*.wandb"))
    data = open(path, "rb").read()
    assert data[:4] == b":W&B"
    block, pos, chunks = 32768, 7, b""
    while pos + 7 <= len(data):
        if block - pos % block < 7:  # a block's tail too short for a chunk header is padding
            pos += block - pos % block
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + 7])
        chunks += data[pos + 7:pos + 7 + length]
        pos += 7 + length
        if kind in (1, 4):  # a full record, or the last chunk of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(chunks)
            chunks = b""
            yield record
        elif kind == 0:
            break


def tensorboard_scalars(workdir):
    """{(tag, step): value} from tensorboardX's event files (TFRecord framing)."""
    from tensorboardX.proto import event_pb2

    scalars = {}
    for path in glob.glob(str(workdir / "tensorboard" / "**" / "events.*"), recursive=True):  # warm start: its own run
        data = open(path, "rb").read()
        pos = 0
        while pos < len(data):
            (length,) = struct.unpack("<Q", data[pos:pos + 8])
            event = event_pb2.Event()
            event.ParseFromString(data[pos + 12:pos + 12 + length])
            pos += 12 + length + 4
            for value in event.summary.value:
                scalars[value.tag, event.step] = value.simple_value
    return scalars


def wandb_writer(config, workdir, enabled=True):
    """The builder's W&B writer for a config."""
    return metrics.wandb_writer(settings(config).log, config.to_dict(), workdir, enabled)


def write_a_short_run(workdir, config):
    writer = metrics.MetricsWriter(workdir, tensorboard=True, wandb=wandb_writer(config, workdir))
    for i in range(3):  # as the trainer's warm start writes them
        writer.write(0, {"warm_start/loss": 2.0 - i, "warm_start/step": i + 1}, kind="warm_start")
    writer.write(0, {"difficulty/Sorting": 0})
    for step in (1, 2):
        writer.write(step, {"rollout/reward": 0.25 * step, "train/grad_norm": 1.5 / step, "difficulty/Sorting": step,
                            "train/loss": math.nan})  # not finite: in neither
    writer.close()


def test_wandb_gets_the_tensorboard_scalars_and_the_config(offline, tmp_path):
    config = base_config()
    config.log.wandb = True
    config.log.wandb_project = "rlve-test"
    config.log.wandb_name = "tiny-run"
    config.log.wandb_tags = "tiny, cpu"
    workdir = tmp_path / "run"
    write_a_short_run(workdir, config)

    records = list(wandb_records(workdir))
    (run,) = [r.run for r in records if r.WhichOneof("record_type") == "run"]
    assert (run.project, run.display_name, list(run.tags)) == ("rlve-test", "tiny-run", ["tiny", "cpu"])
    assert run.run_id == (workdir / "wandb_run_id").read_text()
    logged_config = {item.key: json.loads(item.value_json) for item in run.config.update}
    assert logged_config["optim"]["lr"] == config.optim.lr and logged_config["log"]["wandb_tags"] == "tiny, cpu"

    rows = [{i.key or ".".join(i.nested_key): json.loads(i.value_json) for i in r.history.item} for r in records
            if r.WhichOneof("record_type") == "history"]
    logged = {}
    for row in rows:  # (key, x) -> value, with x the key's own axis as TensorBoard plots it
        x = row["warm_start/step"] if "warm_start/step" in row else row["step"]
        logged.update({(k, x): v for k, v in row.items() if not k.startswith("_") and k != "step"})
    assert logged == pytest.approx(tensorboard_scalars(workdir))
    assert ("rollout/reward", 2) in logged and ("warm_start/loss", 3) in logged
    assert not any(k == "train/loss" for k, _ in logged)
    axes = {r.metric.glob_name or r.metric.name: r.metric.step_metric for r in records
            if r.WhichOneof("record_type") == "metric"}
    assert axes["warm_start/*"] == "warm_start/step" and axes["rollout/*"] == "step"


def test_a_resumed_run_continues_the_same_wandb_run(offline, tmp_path):
    config = base_config()
    config.log.wandb = True
    workdir = tmp_path / "run"
    first = wandb_writer(config, workdir)
    first.close()
    run_id = (workdir / "wandb_run_id").read_text()
    second = wandb_writer(config, workdir)
    assert second.run.id == run_id and second.run.name == "run"
    second.close()


def test_wandb_dir_is_honoured(offline, tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_DIR", str(tmp_path / "wandb_files"))
    config = base_config()
    config.log.wandb = True
    writer = wandb_writer(config, tmp_path / "run")
    writer.close()
    assert glob.glob(str(tmp_path / "wandb_files" / "wandb" / "offline-run-*"))
    assert not (tmp_path / "run" / "wandb").exists() and (tmp_path / "run" / "wandb_run_id").exists()


def test_off_by_default_and_a_clear_error_without_the_package(tmp_path, monkeypatch):
    assert wandb_writer(base_config(), tmp_path) is None
    config = base_config()
    config.log.wandb = True
    assert wandb_writer(config, tmp_path, enabled=False) is None  # not the writing process
    monkeypatch.setitem(sys.modules, "wandb", None)
    with pytest.raises(ImportError, match=r"pip install 'rlve_jax\[wandb\]'"):
        wandb_writer(config, tmp_path)
