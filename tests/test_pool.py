"""The process pool: hard timeouts, crashes, memory limits, order and worker-count independence,
worker deaths, warm workers and failure counts."""

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from envs_for_tests import EchoEnv, SlowGenerateEnv
from rlve_jax.gym.env import Verdict
from rlve_jax.gym.pool import EnvPool, FailureBudgetExceeded, FailureTally, PoolStats, check_failure_budget

ECHO = EchoEnv()


def tagged(text):
    """The answer in the default markers (\\boxed{}, the default prompt's)."""
    return f"\\boxed{{{text}}}"


@pytest.fixture(scope="module")
def pool():
    with EnvPool(workers=2, timeout_s=2.0, memory_limit_mb=1024, extra_envs=[ECHO, SlowGenerateEnv()]) as p:
        yield p


def test_hanging_and_crashing_verifiers_are_cut_off(pool):
    problems = [ECHO.generate(0, seed) for seed in range(6)]
    outputs = [tagged(problems[0].data["value"]), tagged("sleep"), tagged("die"), tagged("hog"),
               "no tags", tagged(problems[5].data["value"])]
    before = pool.stats.as_dict()
    start = time.perf_counter()
    verdicts = pool.verify(problems, outputs)
    assert time.perf_counter() - start < 20
    assert [v.reason for v in verdicts] == ["correct", "timeout", "crash", "error", "no_answer", "correct"]
    assert verdicts[1] == Verdict.format_error("timeout")
    after = pool.stats.as_dict()
    assert after["timeouts"] == before["timeouts"] + 1 and after["crashes"] == before["crashes"] + 1
    # The pool keeps working after killing workers.
    assert pool.verify(problems[:1], outputs[:1])[0].accuracy


def test_generation_failures_become_none(pool):
    problems = pool.generate([("TestOnlyEcho", 0, 1), ("TestOnlySlowGenerate", 1, 2), ("TestOnlyEcho", 3, 3)])
    assert problems[0] == ECHO.generate(0, 1) and problems[1] is None and problems[2].difficulty == 3
    assert pool.stats.generate_failures >= 1


@pytest.mark.parametrize("workers", [0, 1, 3])
def test_results_do_not_depend_on_worker_count(workers):
    requests = [("Sorting", d, seed) for d in range(4) for seed in range(5)] + [("Multiplication", 2, 9)]
    with EnvPool(workers=0) as reference_pool:
        expected = reference_pool.generate(requests)
    with EnvPool(workers=workers) as p:
        problems = p.generate(requests)
        assert problems == expected
        outputs = [tagged(" ".join(map(str, pr.data.get("gold", [])))) for pr in problems]
        assert p.verify(problems, outputs) == reference_pool_verify(expected, outputs)


def reference_pool_verify(problems, outputs):
    with EnvPool(workers=0) as p:
        return p.verify(problems, outputs)


def test_inline_mode_times_out_too():
    with EnvPool(workers=0, timeout_s=0.5, extra_envs=[ECHO]) as p:
        verdict = p.verify([ECHO.generate(0, 0)], [tagged("sleep")])[0]
    assert verdict.reason == "timeout"


# ---------------------------------------------------------------------------
# Worker deaths, BaseException, warm workers, failure counts


def new_children(before):
    """Worker processes started since `before` (multiprocessing's live children)."""
    return [c for c in multiprocessing.active_children() if c.pid not in before]


def started_pool(**kwargs):
    """A pool whose workers are up, and their pids."""
    before = {c.pid for c in multiprocessing.active_children()}
    p = EnvPool(extra_envs=[ECHO], **kwargs)
    assert p.verify([ECHO.generate(0, 0)], [tagged(ECHO.generate(0, 0).data["value"])])[0].accuracy
    return p, [c.pid for c in new_children(before)]


def echo_batch(n, slow=False):
    problems = [ECHO.generate(0, seed) for seed in range(n)]
    return problems, [tagged(("slow:" if slow else "") + str(p.data["value"])) for p in problems]


@pytest.mark.parametrize("workers", [1, 2])
def test_idle_worker_killed_between_calls(workers):
    p, pids = started_pool(workers=workers, timeout_s=5.0)
    with p:
        for pid in pids:  # with every worker gone pebble marks the pool broken ("All workers expired")
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        problems, outputs = echo_batch(6)
        assert all(v.accuracy for v in p.verify(problems, outputs))
        assert p.generate([("TestOnlyEcho", 0, 4)])[0] == ECHO.generate(0, 4)
        assert p.stats.crashes == 0 and p.stats.timeouts == 0 and p.stats.restarts == 1


def test_busy_worker_killed_during_a_call():
    p, pids = started_pool(workers=2, timeout_s=10.0)
    with p:
        problems, outputs = echo_batch(4, slow=True)  # each item takes a second
        killer = threading.Timer(0.5, lambda: [os.kill(pid, signal.SIGKILL) for pid in pids])
        killer.start()
        verdicts = p.verify(problems, outputs)
        killer.join()
        assert [v.reason for v in verdicts] == ["correct"] * 4  # the killed items ran again
        assert p.stats.retries >= 1 and p.stats.crashes == 0


def test_a_verifier_that_always_kills_its_worker_is_a_crash_after_one_retry(pool):
    before = pool.stats.as_dict()
    verdicts = pool.verify([ECHO.generate(0, 1)] * 2, [tagged("die"), tagged(ECHO.generate(0, 1).data["value"])])
    assert [v.reason for v in verdicts] == ["crash", "correct"]
    after = pool.stats.as_dict()
    assert after["retries"] == before["retries"] + 1 and after["crashes"] == before["crashes"] + 1


@pytest.mark.parametrize("workers", [0, 2])
def test_system_exit_and_keyboard_interrupt_from_environment_code_are_verdicts(workers):
    outputs = [tagged("exit"), tagged(ECHO.generate(0, 0).data["value"])]
    if workers:  # a worker's KeyboardInterrupt is environment code's, never the user's
        outputs.insert(1, tagged("interrupt"))
    with EnvPool(workers=workers, timeout_s=5.0, extra_envs=[ECHO]) as p:
        verdicts = p.verify([ECHO.generate(0, 0)] * len(outputs), outputs)
        assert [v.reason for v in verdicts] == ["error"] * (len(outputs) - 1) + ["correct"]
        assert p.stats.failures["TestOnlyEcho"]["verify/error"] == len(outputs) - 1


def test_inline_mode_lets_ctrl_c_through():
    with EnvPool(workers=0, extra_envs=[ECHO]) as p, pytest.raises(KeyboardInterrupt):
        p.verify([ECHO.generate(0, 0)], [tagged("interrupt")])


def test_slow_imports_are_not_timed():
    """Workers import the gym and the extra environments' modules before their first item, and a
    worker replaced after a timeout warms up before it is timed: every item is right."""
    from slow_import_envs import SlowImportEnv

    slow = SlowImportEnv()
    with EnvPool(workers=2, timeout_s=0.5, extra_envs=[slow, ECHO]) as p:
        for _ in range(2):
            requests = [("TestOnlySlowImport", 0, s) for s in range(6)] + [("Sorting", 2, s) for s in range(6)]
            problems = p.generate(requests)
            assert None not in problems
            outputs = [tagged(p_.data["value"]) if p_.env == slow.name else tagged(" ".join(map(str, p_.data["gold"])))
                       for p_ in problems]
            assert all(v.accuracy for v in p.verify(problems, outputs))
        # A timeout replaces a worker with a cold one, which imports everything before it is timed.
        mixed = p.verify([ECHO.generate(0, 0)] + problems[:6],
                         [tagged("sleep")] + [tagged(p_.data["value"]) for p_ in problems[:6]])
        assert [v.reason for v in mixed] == ["timeout"] + ["correct"] * 6


def test_failures_are_counted_per_environment_and_step():
    with EnvPool(workers=0, timeout_s=0.5, extra_envs=[ECHO, SlowGenerateEnv()]) as p:
        p.generate([("TestOnlySlowGenerate", 1, 0), ("TestOnlyEcho", 0, 0), ("NoSuchEnvironment", 0, 0)])
        p.verify([ECHO.generate(0, 0)], [tagged("sleep")])
        tally = p.take_tally()
        assert tally.attempted == {"generate": 3, "verify": 1}
        assert tally.failed == {("generate", "TestOnlySlowGenerate", "timeout"): 1,
                                ("generate", "NoSuchEnvironment", "error"): 1, ("verify", "TestOnlyEcho", "timeout"): 1}
        assert p.take_tally().attempted == {}  # a fresh tally per step
        assert p.stats.failures["TestOnlySlowGenerate"] == {"generate/timeout": 1}
        assert PoolStats.from_dict(json.loads(json.dumps(p.stats.as_dict()))) == p.stats  # checkpoint round trip


def test_failure_budget_names_environments_and_reasons():
    tally = FailureTally()
    tally.attempted.update({"generate": 32, "verify": 100})
    tally.failed.update({("generate", "Cinema", "timeout"): 20, ("generate", "Sorting", "error"): 1,
                         ("verify", "Sorting", "crash"): 50})
    check_failure_budget(tally, 0.7, "step 3")  # 21/32 and 50/100 are within 70%
    with pytest.raises(FailureBudgetExceeded) as error:
        check_failure_budget(tally, 0.5, "step 3")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("step 3: 21 of 32 generations failed") and "Cinema 20x timeout, Sorting 1x error" in message
    check_failure_budget(FailureTally(), 0.0, "empty step")  # nothing attempted: nothing to judge


# A user's script as TRL's examples are written: no `if __name__ == "__main__":` guard, an environment
# class defined in the script itself, and the TRL reward function. Workers must not re-run it.
UNGUARDED_SCRIPT = '''
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS, Environment
from rlve_jax.gym.integrations import GymScorer, problem_row, trl_reward

print("script body ran", flush=True)


class ScriptParity(Environment):
    name = "ScriptParity"

    def levels(self, difficulty):
        return [{}]

    def sample(self, params, rng):
        return {"n": rng.randint(0, 100)}

    def prompt(self, data):
        return f"Is {data['n']} even? Answer 1 or 0."

    def score(self, data, answer):
        return float(answer.strip() == str(int(data["n"] % 2 == 0)))


env = registry.make("Sorting")
rows = [problem_row(env.generate(1, seed)) for seed in range(3)]
answers = ["\\\\boxed{" + env.reference(env.generate(1, seed)) + "}" for seed in range(3)]
rewards = trl_reward(prompts=[r["prompt"] for r in rows], completions=answers,
                     reward_model=[r["reward_model"] for r in rows], extra_info=[r["extra_info"] for r in rows],
                     data_source=[r["data_source"] for r in rows])
parity = ScriptParity()
problem = parity.generate(0, 4)
scorer = GymScorer(workers=1, extra_envs=[parity])
right = f"<answer>{int(problem.data['n'] % 2 == 0)}</answer>"
verdicts = scorer.verify([problem, problem], [right, "<answer>7</answer>"], [ANSWER_TAGS] * 2)
scorer.close()
print("rewards", rewards, [v.reward for v in verdicts], flush=True)
'''


def test_a_script_without_a_main_guard_scores_normally(tmp_path):
    """Workers start without re-importing the caller's __main__: the script body runs once, rewards are
    right (spawn re-ran the script in each worker, which died, and every reward was -1), and an
    environment class defined in the script itself still reaches the workers."""
    script = tmp_path / "train_without_guard.py"
    script.write_text(UNGUARDED_SCRIPT)
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.count("script body ran") == 1, result.stdout
    assert "rewards [1.0, 1.0, 1.0] [1.0, 0.0]" in result.stdout, result.stdout + result.stderr[-2000:]
    assert "bootstrapping phase" not in result.stderr and "pool broke" not in result.stderr


def test_every_answer_markers_default_is_the_default_prompts():
    """One default across the gym's public functions: the default prompt's (the chat format's \\boxed{})."""
    import inspect

    from rlve_jax.gym.env import DEFAULT_MARKERS, Environment, extract_answer
    from rlve_jax.gym.prompts import PromptFormat

    for function in (extract_answer, Environment.verify, EnvPool.verify):
        assert inspect.signature(function).parameters["markers"].default == DEFAULT_MARKERS, function
    assert DEFAULT_MARKERS == PromptFormat("chat").markers
