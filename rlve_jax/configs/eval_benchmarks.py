"""The paper's reasoning benchmarks: AIME 2024/2025 (Avg@64), OMEGA-500, OlympiadBench, BBEH (Avg@4).

python -m rlve_jax.main --config=configs/eval_benchmarks.py --config.model.path=DIR

Math answers are judged with math-verify on the last \\boxed{} (LaTeX parsing only); BBEH by
normalised exact match. The sixth, LiveCodeBench, runs model-written code in a sandbox:
configs/eval_code.py (or add "livecodebench" to eval.benchmarks with eval.code_path set).
"""

from rlve_jax.defaults import base_config


def get_config():
    config = base_config()
    config.mode = "eval"
    config.eval.suite = "benchmarks"
    config.eval.temperature = 0.6
    config.eval.top_p = 0.95
    config.eval.max_response_tokens = 32768
    config.rollout.max_prompt_tokens = 0
    return config
