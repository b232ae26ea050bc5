"""Evaluation: the frozen held-out set, benchmark judges, pass@k, and the pipeline on a tiny model."""

import json
import math

import jax
import numpy as np
import pytest

from rlve_jax.evaluation import evaluate, scores
from rlve_jax.gym.env import BOXED, Problem, Verdict

from models_for_tests import use_micro_policy


def test_frozen_heldout_set_regenerates_exactly():
    frozen = evaluate.load_problems()
    assert len(frozen) == 2500
    assert [p.to_json() for p in evaluate.build_heldout()] == [p.to_json() for p in frozen]
    per_env = {}
    for p in frozen:
        per_env.setdefault(p.env, []).append(p)
    assert len(per_env) == 50 and all(len(v) == 50 for v in per_env.values())
    assert all(len({p.prompt for p in v}) == 50 for v in per_env.values())  # no duplicate prompts
    # 10 per difficulty 0-4 wherever the levels hold enough distinct problems (as in the original).
    full = [env for env, v in per_env.items() if [sum(p.difficulty == d for p in v) for d in range(5)] == [10] * 5]
    assert len(full) >= 47


@pytest.mark.parametrize("n, c, k, expected", [
    (10, 3, 1, 0.3),
    (5, 0, 3, 0.0),
    (5, 5, 5, 1.0),
    (4, 1, 2, 0.5),  # 1 - C(3,2)/C(4,2)
    (64, 16, 8, 1 - math.comb(48, 8) / math.comb(64, 8)),
    (3, 2, 2, 1.0),  # n - c < k
])
def test_pass_at_k_closed_forms(n, c, k, expected):
    assert scores.pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_needs_enough_samples():
    with pytest.raises(ValueError):
        scores.pass_at_k(2, 1, 3)


def judge(kind, ground_truth, answer):
    env = evaluate.JUDGES[kind]
    problem = Problem(env.name, 0, 0, "q", {}, {"ground_truth": ground_truth})
    return env.verify(problem, f"The answer is \\boxed{{{answer}}}.", BOXED)


@pytest.mark.parametrize("gold, answer", [
    ("204", "204"), ("\\frac{1}{2}", "0.5"), ("\\frac{1}{2}", "\\dfrac{1}{2}"), ("2\\sqrt{3}", "\\sqrt{12}"),
    ("x^2+1", "1+x^{2}"), ("\\pi", "\\pi"), ("(1,2)", "(1, 2)"), ("70", "70.0"),
])
def test_math_verify_accepts_equivalent_answers(gold, answer):
    assert judge("math", gold, answer).accuracy


@pytest.mark.parametrize("gold, answer", [
    ("204", "205"), ("\\frac{1}{2}", "\\frac{1}{3}"), ("2\\sqrt{3}", "3\\sqrt{2}"), ("x^2+1", "x^2-1"),
    ("70", "__import__('os').system('true')"), ("70", "9**9**9**9"),
])
def test_math_verify_rejects_different_answers(gold, answer):
    verdict = judge("math", gold, answer)
    assert not verdict.accuracy and -1 <= verdict.reward <= 0


def test_bbeh_normalised_exact_match():
    assert judge("exact", "(A)", "a").accuracy
    assert judge("exact", "True", "the answer is: true.").accuracy
    assert judge("exact", "no", "No").accuracy
    assert not judge("exact", "no", "yes").accuracy


def test_summary_per_group_difficulty_and_pass_at_k():
    problems = [Problem("A", 0, 0, "", {}, {}), Problem("A", 1, 1, "", {}, {}), Problem("B", 1, 2, "", {}, {})]
    ok, bad = Verdict.judge(1.0, 1.0), Verdict.judge(0.0, 1.0)
    summary = scores.summarize(problems, [[ok, ok], [ok, bad], [bad, bad]], ks=(1, 2))
    assert summary["overall"] == pytest.approx(0.5)
    assert summary["per_group"] == {"A": 0.75, "B": 0.0}
    assert summary["per_difficulty"] == {0: 1.0, 1: 0.25}
    assert summary["pass_at_k"] == {1: pytest.approx(0.5), 2: pytest.approx(2 / 3)}


def test_benchmarks_load():
    for name in evaluate.BENCHMARKS:
        problems = evaluate.load_benchmark(name)
        assert problems and all(p.data["ground_truth"] for p in problems)


def test_eval_pipeline_end_to_end_on_a_tiny_model(tmp_path, capsys):
    from configs.eval_heldout import get_config as heldout_config
    from configs.eval_benchmarks import get_config as benchmarks_config

    for get_config, suite in ((heldout_config, "heldout"), (benchmarks_config, "benchmarks")):
        config = use_micro_policy(get_config())
        config.env.workers = 2
        config.eval.problems = 4
        config.eval.samples = 2
        config.eval.max_response_tokens = 8
        config.eval.benchmarks = "aime24,bbeh"
        config.log.progress = False
        results = evaluate.run(config, tmp_path / suite)
        for name, summary in results.items():
            assert 0.0 <= summary["overall"] <= 1.0 and summary["problems"] == 4
            records = [json.loads(line) for line in (tmp_path / suite / f"{name}_responses.jsonl").open()]
            assert len(records) == 8 and {"prompt", "response", "extracted_answer", "reward"} <= set(records[0])
            assert json.loads((tmp_path / suite / f"{name}_summary.json").read_text())["problems"] == 4
    assert "problems/s" in capsys.readouterr().out


def test_eval_of_a_training_checkpoint_uses_the_runs_own_model_settings(tmp_path):
    """The eval config's model settings (scanned layers) differ from the run's (a Python loop): the
    checkpoint's record decides, and the saved parameters and tokenizer are the ones evaluated."""
    from configs.eval_heldout import get_config as heldout_config
    from configs.tiny import get_config as tiny_config

    import optax

    from models_for_tests import config_policy
    from rlve_jax.runtime.checkpoint import Checkpointer, TrainState

    training = tiny_config()
    run = tmp_path / "run"
    policy = config_policy(training, ["Multiplication"], run)
    params = jax.tree.map(lambda x: x * 1.5, policy.params)  # not what a fresh init would give
    checkpointer = Checkpointer(run)
    checkpointer.save(TrainState(params, optax.sgd(0.1).init(params), 7), {"config": training.to_dict()})
    checkpointer.close()

    config = heldout_config()
    assert config.model.scan_layers != training.model.scan_layers
    config.eval.checkpoint = str(run)
    evaluated = evaluate.eval_policy(config, tmp_path / "eval")
    for a, b in zip(jax.tree.leaves(evaluated.params), jax.tree.leaves(params)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert not (tmp_path / "eval" / "tokenizer").exists()  # the run's own, not a new one
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        config.eval.checkpoint = str(tmp_path / "nothing")
        evaluate.eval_policy(config, tmp_path / "eval")
