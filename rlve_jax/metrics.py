"""Run metrics: workdir/metrics.jsonl (one record per step), TensorBoard events, a tqdm bar."""

from __future__ import annotations

import json
import math
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


def read_records(workdir: str | Path) -> list[dict]:
    """All records of workdir/metrics.jsonl (empty if none)."""
    path = Path(workdir) / "metrics.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


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
        self.enabled = enabled
        self.tb = None
        if tensorboard and enabled:
            from tensorboardX import SummaryWriter

            self.tb = SummaryWriter(str(self.workdir / "tensorboard"))

    def write(self, step: int, metrics: dict, kind: str = "train") -> None:
        if not self.enabled:
            return
        record = {"step": step, "kind": kind, **{k: v for k, v in metrics.items()
                                                 if isinstance(v, (int, float)) and math.isfinite(v)}}
        with self.path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        if self.tb is not None:
            x = metrics.get("warm_start/step", step) if kind == "warm_start" else step
            for key, value in record.items():
                if key not in ("step", "kind"):
                    self.tb.add_scalar(key, value, x)
            self.tb.flush()

    def truncate_after(self, step: int) -> None:
        """Drop records of steps that a resume will redo (written after the last checkpoint)."""
        if not self.enabled:
            return
        records = [r for r in read_records(self.workdir) if r["step"] <= step]
        self.path.write_text("".join(json.dumps(r) + "\n" for r in records))

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
        if self.tb is not None:
            self.tb.close()
