"""The process pool: hard timeouts, crashes, memory limits, order and worker-count independence."""

import time

import pytest

from envs_for_tests import EchoEnv, SlowGenerateEnv
from rlve_jax.env import Verdict
from rlve_jax.pool import EnvPool

ECHO = EchoEnv()


def tagged(text):
    return f"<answer>{text}</answer>"


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
