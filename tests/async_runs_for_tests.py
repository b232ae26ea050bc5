"""The training runs tests/test_async.py compares, in one process: 8 forced CPU devices, 2 for rollouts and 6
for training, one persistent compilation cache (the later runs load what the first compiled).

python tests/async_runs_for_tests.py OUT_DIR

OUT_DIR/warm: the warm start only (step 0); every run below resumes a copy of it, for STEPS steps:
  sync: the synchronous loop on the same two meshes (the trainer's batch source: the Collector, not the
        AsyncCollector around it);
  stale0 / stale1: one-step-off-policy with train.max_staleness 0 / 1;
  resumed1: stale1's checkpoint of step STEPS - 1 (it holds the batch collected ahead), resumed to STEPS.
"""

import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rlve_jax
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

STEPS = 3
OVERRIDES = {
    "warm_start.steps": 40, "warm_start.batch_size": 8, "rollout.prompts_per_step": 3,
    "rollout.samples_per_prompt": 4, "rollout.oversample_prompts": 4, "rollout.max_response_tokens": 8,
    "rollout.max_rounds": 2,
    "train.micro_batch_size": 12, "checkpoint.every": 1, "checkpoint.keep": 10, "log.progress": False,
    "log.tensorboard": False, "mesh.rollout_devices": 2,
    "optim.warmup_steps": 0,  # the first update moves the weights: a lag of one update is visible from batch 2 on
}


def config(steps: int, cache: Path, **overrides):
    from rlve_jax import defaults

    c = defaults.experiment("tiny")
    for key, value in {**OVERRIDES, "steps": steps, "compilation_cache_dir": str(cache), **overrides}.items():
        section, _, name = key.rpartition(".")
        (c[section] if section else c)[name] = value
    defaults.validate(c)
    return c


def train(workdir: Path, c, synchronous: bool = False) -> None:
    from rlve_jax.builder import build_trainer

    trainer = build_trainer(c, workdir)
    if synchronous:
        trainer.batches.close()
        trainer.batches = trainer.batches.collector  # the loop collects each batch itself, on the same rollout sub-mesh
    try:
        trainer.run()
    finally:
        trainer.close()


def copy_at(source: Path, target: Path, step: int) -> None:
    """A copy of a workdir holding its checkpoints up to `step` (a resume continues from there)."""
    shutil.copytree(source, target)
    for checkpoint in (target / "checkpoints").iterdir():
        if checkpoint.name.isdigit() and int(checkpoint.name) > step:
            shutil.rmtree(checkpoint)


def main(out: Path) -> None:
    from rlve_jax.runtime import distributed

    cache = out / "compilation_cache"
    distributed.initialize(xla_flags="", compilation_cache_dir=str(cache), num_processes=1, coordinator_address="",
                           process_id=-1)  # the compilation cache, before the backend starts
    train(out / "warm", config(0, cache))
    for name, staleness, synchronous in (("sync", 0, True), ("stale0", 0, False), ("stale1", 1, False)):
        copy_at(out / "warm", out / name, 0)
        train(out / name, config(STEPS, cache, **{"train.max_staleness": staleness}), synchronous)
    copy_at(out / "stale1", out / "resumed1", STEPS - 1)
    train(out / "resumed1", config(STEPS, cache, **{"train.max_staleness": 1}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
