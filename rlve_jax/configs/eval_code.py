"""The paper's sixth benchmark: LiveCodeBench, Pass@8 from 16 samples, programs run in the sandbox.

python -m rlve_jax.main --config=configs/eval_code.py --config.model.path=DIR \
    --config.eval.code_path=DATA   # LiveCodeBench's released test*.jsonl (file or directory)

Sampling as the other benchmarks (temperature 0.6, top-p 0.95, 32k new tokens). Each program runs
in a fresh namespace sandbox (rlve_jax/evaluation/sandbox.py); where the kernel forbids namespaces the run
stops at the start unless --config.eval.sandbox=none accepts running model code unisolated.
"""

from rlve_jax.defaults import experiment


def get_config():
    config = experiment("eval_benchmarks")
    config.eval.suite = "code"
    config.eval.samples = 16
    return config
