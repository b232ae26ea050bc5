"""Run metrics: workdir/metrics.jsonl (one record per step), TensorBoard events, Weights & Biases
(optional, log.wandb), a tqdm bar.

A run that starts without a checkpoint starts its metrics clean; a resumed run drops the records
of steps it will redo (and a torn last line, e.g. from a full disk or a host crash) and tells
TensorBoard to purge the points past the resumed step, so no step is ever shown twice.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import shutil
from pathlib import Path
from typing import Any, Sequence

from tqdm import tqdm

PROGRESS_KEYS = {  # what the bar shows, short names
    "rollout/reward": "reward",
    "rollout/accuracy": "acc",
    "rollout/effective_prompt_ratio": "effective",
    "rollout/response_length_mean": "len",
    "warm_start/loss": "loss",
    "eval/accuracy": "eval",
}


log = logging.getLogger(__name__)


def read_records(workdir: str | Path) -> list[dict]:
    """All complete records of workdir/metrics.jsonl (empty if none); torn lines are skipped."""
    path = Path(workdir) / "metrics.jsonl"
    if not path.exists():
        return []
    records = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line) if line.strip() else None
        except json.JSONDecodeError:
            record = None
        if isinstance(record, dict) and isinstance(record.get("step"), int):
            records.append(record)
        elif line.strip():
            log.warning("%s: skipped a torn record (%d characters)", path, len(line))
    return records


class Progress:
    """A tqdm bar over steps that shows the key numbers (or nothing when disabled)."""

    def __init__(self, start: int, total: int, enabled: bool, desc: str):
        self.bar = tqdm(total=total, initial=start, desc=desc, dynamic_ncols=True) if enabled else None
        self.position = start

    def update(self, step: int, metrics: dict) -> None:
        if self.bar is None:
            return
        self.bar.update(step - self.position)
        self.position = step
        shown = {short: f"{metrics[key]:.3g}" for key, short in PROGRESS_KEYS.items() if key in metrics}
        levels = [v for k, v in metrics.items() if k.startswith("difficulty/")]
        if levels:
            shown["h_max"] = str(max(levels))
        self.bar.set_postfix(shown, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class MetricsWriter:
    """Writes only when enabled: in a multi-process run, process 0 writes for everyone."""

    def __init__(self, workdir: str | Path, tensorboard: bool = True, enabled: bool = True,
                 wandb: "WandbWriter | None" = None):
        self.workdir = Path(workdir)
        self.path = self.workdir / "metrics.jsonl"
        self.tb_dir = self.workdir / "tensorboard"  # RL steps; the warm start is its own run (tensorboard/warm_start)
        self.enabled = enabled
        self.wandb = wandb if enabled else None
        self.tensorboard = tensorboard and enabled
        self.tb = None  # opened on the first write, or by start_fresh / resume_at
        self.tb_warm = None

    def _open_tensorboard(self, purge_step: int | None = None) -> None:
        """(Re)open the RL-step event writer; `purge_step` hides the points at steps >= it."""
        if not self.tensorboard:
            return
        from tensorboardX import SummaryWriter

        if self.tb is not None:
            self.tb.close()
        self.tb = SummaryWriter(str(self.tb_dir), purge_step=purge_step)

    def start_fresh(self) -> None:
        """A run without a checkpoint: forget the records and events a killed earlier attempt left."""
        if not self.enabled:
            return
        self._close_tensorboard()
        self.path.unlink(missing_ok=True)
        shutil.rmtree(self.tb_dir, ignore_errors=True)
        self._open_tensorboard()

    def resume_at(self, step: int) -> None:
        """A run resumed from checkpoint `step`: drop later records (and torn lines), purge later points."""
        self.truncate_after(step)
        self._open_tensorboard(purge_step=step + 1)

    def write(self, step: int, metrics: dict, kind: str = "train") -> None:
        if not self.enabled:
            return
        record = {"step": step, "kind": kind, **{k: v for k, v in metrics.items()
                                                 if isinstance(v, (int, float)) and math.isfinite(v)}}
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        self._write_tensorboard(step, record, kind)
        if self.wandb is not None:
            self.wandb.write(step, record, kind)

    def _write_tensorboard(self, step: int, record: dict, kind: str) -> None:
        if not self.tensorboard:
            return
        if kind == "warm_start":
            if self.tb_warm is None:
                from tensorboardX import SummaryWriter

                self.tb_warm = SummaryWriter(str(self.tb_dir / "warm_start"))
            writer, x = self.tb_warm, record.get("warm_start/step", step)
        else:
            if self.tb is None:
                self._open_tensorboard()
            writer, x = self.tb, step
        for key, value in record.items():
            if key not in ("step", "kind"):
                writer.add_scalar(key, value, x)
        writer.flush()

    def truncate_after(self, step: int) -> None:
        """Drop records of steps that a resume will redo (written after the last checkpoint), and any
        torn line; the rewrite is atomic, so a crash here loses nothing."""
        if not self.enabled or not self.path.exists():
            return
        records = [r for r in read_records(self.workdir) if r["step"] <= step]
        tmp = self.path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in records))
        tmp.replace(self.path)

    def recent_accuracy(self, last: int = 5) -> dict[str, float]:
        """Mean per-environment accuracy over the last `last` training steps that saw the environment."""
        seen: dict[str, list[float]] = {}
        for record in read_records(self.workdir)[::-1]:
            for key, value in record.items():
                if key.startswith("accuracy/") and len(seen.setdefault(key[9:], [])) < last:
                    seen[key[9:]].append(value)
        return {env: sum(v) / len(v) for env, v in seen.items()}

    def progress(self, start: int, total: int, enabled: bool = True, desc: str = "RLVE") -> Progress:
        return Progress(start, total, enabled and self.enabled, desc)

    def _close_tensorboard(self) -> None:
        for writer in (self.tb, self.tb_warm):
            if writer is not None:
                writer.close()
        self.tb = self.tb_warm = None

    def close(self) -> None:
        self._close_tensorboard()
        if self.wandb is not None:
            self.wandb.close()


# ---------------------------------------------------------------------------
# Weights & Biases (the `wandb` extra: pip install 'rlve_jax[wandb]')


class WandbWriter:
    """The scalars TensorBoard gets, and the run's config, in a W&B run (WANDB_MODE=offline: local files).

    W&B writes its files under $WANDB_DIR when that is set, else under the workdir. The run id is kept in
    workdir/wandb_run_id, so a resumed training run continues its W&B run; the
    steps that run already holds (a resume redoes those after the last checkpoint, with the same values
    since training is reproducible) are not logged twice. Warm-start records are plotted against
    warm_start/step, everything else against step.
    """

    def __init__(self, workdir: str | Path, config: dict[str, Any], project: str = "", name: str = "",
                 tags: Sequence[str] = ()):
        try:
            import wandb
        except ImportError as error:
            raise ImportError("log.wandb needs the wandb package: pip install 'rlve_jax[wandb]'") from error
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        id_path = workdir / "wandb_run_id"
        run_id = id_path.read_text().strip() if id_path.exists() else None  # None: W&B makes one
        files_dir = os.environ.get("WANDB_DIR") or str(workdir)  # W&B's own files: WANDB_DIR when set, else workdir
        self.run = wandb.init(project=project or None, name=name or workdir.absolute().name, tags=list(tags) or None,
                              config=config, id=run_id, resume="allow", dir=files_dir)
        id_path.write_text(self.run.id)
        self.resumed_through = int(self.run.summary.get("step", -1))  # last training step the run holds
        self._defined: set[str] = set()  # axes and key patterns given to define_metric

    def write(self, step: int, record: dict[str, float], kind: str = "train") -> None:
        scalars = {k: v for k, v in record.items() if k not in ("step", "kind")}
        if kind == "warm_start":
            axis = "warm_start/step"
        elif step <= self.resumed_through:
            return
        else:
            axis, scalars["step"] = "step", step
        for key in (axis, *scalars):
            pattern = key if key == axis or "/" not in key else f"{key.split('/', 1)[0]}/*"
            if pattern not in self._defined:  # each prefix's keys are plotted against its axis
                self.run.define_metric(pattern, **({} if key == axis else {"step_metric": axis}))
                self._defined.add(pattern)
        self.run.log(scalars)

    def close(self) -> None:
        self.run.finish()


@dataclasses.dataclass(frozen=True)
class LogSettings:
    """The log section: TensorBoard, the progress bar, Weights & Biases."""

    tensorboard: bool
    progress: bool  # tqdm bars (the warm start's, the run's)
    wandb: bool
    wandb_project: str
    wandb_name: str  # "" = the workdir's name
    wandb_tags: str  # comma-separated


def wandb_writer(log: LogSettings, run_config: dict[str, Any], workdir: str | Path,
                 enabled: bool = True) -> WandbWriter | None:
    """The W&B writer the log section asks for, or None; only on the process that writes metrics (enabled)."""
    if not (log.wandb and enabled):
        return None
    tags = [t.strip() for t in log.wandb_tags.split(",") if t.strip()]
    return WandbWriter(workdir, run_config, log.wandb_project, log.wandb_name, tags)


class StepLog:
    """The per-step metrics hook: each step's record (metrics.jsonl, TensorBoard, W&B) and the progress bar,
    which opens at the first step logged and closes at the run's last."""

    def __init__(self, writer: MetricsWriter, steps: int, progress: bool):
        self.writer, self.steps, self.progress = writer, steps, progress
        self.bar: Progress | None = None

    def __call__(self, info) -> None:
        """info: the trainer's StepInfo (step, metrics, last)."""
        if self.bar is None:
            self.bar = self.writer.progress(info.step - 1, self.steps, enabled=self.progress)
        self.writer.write(info.step, info.metrics)
        self.bar.update(info.step, info.metrics)
        if info.last:
            self.bar.close()
