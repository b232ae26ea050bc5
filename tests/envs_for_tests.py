"""Test-only environments (not registered): one that hangs, one that crashes its worker."""

import os
import time

from rlve_jax.gym.env import ANSWER_TAGS, Environment
from rlve_jax.gym.environments._common import parse_int


class EchoEnv(Environment):
    """Answer = the seed; 'sleep' makes the verifier hang, 'die' kills the worker process, 'exit' and
    'interrupt' raise SystemExit / KeyboardInterrupt, 'slow:<value>' answers after a second."""

    name = "TestOnlyEcho"

    def levels(self, difficulty):
        return [{"N": difficulty}]

    def sample(self, params, rng):
        return {"value": rng.randint(0, 10**6)}

    def prompt(self, data):
        return "Repeat the hidden value."

    def score(self, data, answer):
        if answer == "sleep":
            time.sleep(60)
        if answer == "die":
            os._exit(3)
        if answer == "exit":
            raise SystemExit(0)
        if answer == "interrupt":
            raise KeyboardInterrupt
        if answer.startswith("slow:"):
            time.sleep(1.0)
            answer = answer[5:]
        if answer == "hog":
            blob = bytearray(64 * 2**30)  # far above the worker's memory limit
            return float(len(blob) > 0)
        return float(parse_int(answer) == data["value"])


class SlowGenerateEnv(EchoEnv):
    name = "TestOnlySlowGenerate"

    def sample(self, params, rng):
        if params["N"] == 1:
            time.sleep(60)
        return super().sample(params, rng)


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field))


def top_level_item(name: str, difficulty: int, seed: int) -> dict:
    """A pool item for tests/test_top_levels.py: generate + verify(reference) at a level, with the CPU
    seconds, the resident memory it added and the prompt size (the probe's budgets, load-independent)."""
    from rlve_jax.gym import registry

    with open("/proc/self/clear_refs", "w") as f:  # reset the peak-RSS mark to the current RSS
        f.write("5")
    before_kb = _status_kb("VmRSS:")
    env = registry.make(name)
    start = time.process_time()
    problem = env.generate(difficulty, seed)
    reference = env.reference(problem)
    correct = reference is None or env.verify(problem, f"<answer>{reference}</answer>", ANSWER_TAGS).accuracy
    return {"cpu_s": time.process_time() - start, "added_mb": (_status_kb("VmHWM:") - before_kb) / 1024,
            "prompt_chars": len(problem.prompt), "answer_chars": len(reference or ""), "reference_correct": correct}
