"""Run metrics: workdir/metrics.jsonl (one record per step), TensorBoard events, a tqdm bar.

A run that starts without a checkpoint starts its metrics clean; a resumed run drops the records
of steps it will redo (and a torn last line, e.g. from a full disk or a host crash) and tells
TensorBoard to purge the points past the resumed step, so no step is ever shown twice.
"""

from __future__ import annotations

import json
import logging
import math
import shutil
from pathlib import Path

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

    def __init__(self, workdir: str | Path, tensorboard: bool = True, enabled: bool = True):
        self.workdir = Path(workdir)
        self.path = self.workdir / "metrics.jsonl"
        self.tb_dir = self.workdir / "tensorboard"  # RL steps; the warm start is its own run (tensorboard/warm_start)
        self.enabled = enabled
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
        self.close()
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

    def close(self) -> None:
        for writer in (self.tb, self.tb_warm):
            if writer is not None:
                writer.close()
        self.tb = self.tb_warm = None
