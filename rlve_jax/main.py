"""Entry point: python -m rlve_jax.main --config=configs/c256.py [--workdir=DIR] [--config.a.b=value]

The config file's `mode` picks the job: "train" (RLVE) or "eval" (held-out environments or
benchmarks, see rlve_jax/evaluate.py). A workdir that already holds checkpoints is resumed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from absl import app, flags
from ml_collections import config_flags

_CONFIG = config_flags.DEFINE_config_file("config", None, "path to a config file in configs/", lock_config=True)
_WORKDIR = flags.DEFINE_string("workdir", None, "run directory (checkpoints, metrics, plots); "
                                                "default: runs/<config file name>")


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    config = _CONFIG.value
    if config is None:
        raise app.UsageError("pass --config=configs/<name>.py (e.g. configs/tiny.py)")
    workdir = Path(_WORKDIR.value or Path("runs") / Path(flags.FLAGS["config"].config_filename).stem)
    logging.getLogger().setLevel(logging.WARNING)  # library chatter (orbax logs every save at INFO)
    logging.getLogger("rlve_jax").setLevel(logging.INFO)
    if config.mode == "train":
        from rlve_jax.trainer import Trainer

        trainer = Trainer(config, workdir)
        try:
            trainer.run()
        finally:
            trainer.close()
    elif config.mode == "eval":
        from rlve_jax import evaluate

        evaluate.run(config, workdir)
    else:
        raise app.UsageError(f"config.mode must be 'train' or 'eval', got {config.mode!r}")


if __name__ == "__main__":
    app.run(main)
