"""Entry point: python -m rlve_jax.main --config=configs/c256.py [--workdir=DIR] [--config.a.b=value]

The config file's `mode` picks the job: "train" (RLVE) or "eval" (held-out environments or
benchmarks, see rlve_jax/evaluation/evaluate.py). A workdir that already holds checkpoints is resumed.
Multi-host: every host runs the same command with config.distributed set (README "Scaling out").
The config is validated before any device, model or pool work; config and input errors print
one line ("error: ..."), exit status 2; --verbose keeps the traceback.
"""

from __future__ import annotations

import logging
from pathlib import Path

from absl import app, flags

from rlve_jax.cli import CONFIG, INPUT_ERRORS, VERBOSE, WORKDIR, exit_on_input_error, parse_flags
from rlve_jax.runtime import distributed


def main(argv: list[str]) -> None:
    """Run the job; input errors (and a run that lost too many pool items) become one line on stderr and exit
    status 2, unless --verbose."""
    from rlve_jax.gym.pool import FailureBudgetExceeded

    try:
        run(argv)
    except Exception as error:  # noqa: BLE001  (input errors become one line, others re-raise)
        exit_on_input_error(error, VERBOSE.value, (*INPUT_ERRORS, FailureBudgetExceeded))
        raise


def run(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"unexpected arguments: {argv[1:]}")
    config = CONFIG.value
    if config is None:
        raise app.UsageError("pass --config=configs/<name>.py (e.g. configs/tiny.py)")
    from rlve_jax.defaults import validate

    validate(config)  # before any device, model or pool work
    workdir = Path(WORKDIR.value or Path("runs") / Path(flags.FLAGS["config"].config_filename).stem)
    logging.getLogger().setLevel(logging.WARNING)  # library chatter (orbax logs every save at INFO)
    logging.getLogger("rlve_jax").setLevel(logging.INFO)
    distributed.initialize(xla_flags=config.xla_flags, compilation_cache_dir=config.compilation_cache_dir,
                           **config.distributed)  # before anything touches a device
    if config.mode == "train":
        from rlve_jax.builder import build_trainer

        trainer = build_trainer(config, workdir)
        try:
            trainer.run()
        finally:
            trainer.close()
    elif config.mode == "eval":
        from rlve_jax import plan
        from rlve_jax.evaluation import evaluate

        evaluate.run(config, workdir, check=plan.check)  # the memory plan before the weights are read
    else:
        raise app.UsageError(f"config.mode must be 'train' or 'eval', got {config.mode!r}")


if __name__ == "__main__":
    app.run(main, flags_parser=parse_flags)
