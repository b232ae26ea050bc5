"""The gym from TRL and verl: rows, reward functions called as the frameworks call them, `envs verify`."""

import json

import pytest

from envs_for_tests import EchoEnv
from rlve_jax.gym import envs, integrations, registry
from rlve_jax.gym.env import ANSWER_TAGS, BOXED
from rlve_jax.gym.prompts import TINYZERO_TEMPLATE

ENV_NAMES = ("Sorting", "Multiplication")


def problems(n_per_env=2):
    return [registry.make(name).generate(d, seed) for name in ENV_NAMES for d, seed in zip(range(n_per_env),
                                                                                          range(5, 5 + n_per_env))]


def answer(problem, markers, correct=True):
    env = registry.make(problem.env)
    text = env.reference(problem) if correct else env.perturb(problem, env.reference(problem))
    return f"Thinking... {markers[0]}{text}{markers[1]}"


def columns(rows):
    """Dataset columns as TRL passes them: one list per column, without "prompt"."""
    return {key: [row[key] for row in rows] for key in rows[0] if key != "prompt"}


@pytest.mark.parametrize("prompt_format", integrations.PROMPT_FORMATS)
def test_rows_hold_the_wrapped_prompt_and_the_problem(prompt_format):
    problem = problems(1)[0]
    row = integrations.problem_row(problem, prompt_format)
    assert row["data_source"] == "rlve/Sorting" and row["reward_model"]["style"] == "rule"
    assert integrations.row_problem(json.loads(json.dumps(row))) == (problem, integrations.markers_for(prompt_format))
    if prompt_format == "chat":
        assert row["prompt"][0]["role"] == "user" and row["prompt"][0]["content"].endswith("\\boxed{}.")
        assert row["extra_info"]["answer_markers"] == list(BOXED)
    elif prompt_format == "tinyzero":
        assert row["prompt"] == TINYZERO_TEMPLATE.format(prompt=problem.prompt)
        assert row["extra_info"]["answer_markers"] == list(ANSWER_TAGS)
    else:
        assert row["prompt"] == problem.prompt


def test_trl_reward_function_with_grpo_trainers_arguments():
    """GRPOTrainer calls reward_func(prompts=, completions=, completions_ids=, trainer_state=, **columns)."""
    rows = [integrations.problem_row(p, "chat") for p in problems()]
    foreign = {"data_source": "gsm8k", "prompt": "1+1?", "ability": "math",
               "reward_model": {"style": "rule", "ground_truth": "2"}, "extra_info": {}}
    completions = [[{"role": "assistant", "content": answer(p, BOXED, correct=i % 2 == 0)}]
                   for i, p in enumerate(problems())] + [[{"role": "assistant", "content": "2"}]]
    all_rows = rows + [foreign]
    rewards = integrations.trl_reward(prompts=[r["prompt"] for r in all_rows], completions=completions,
                                      completions_ids=[[1, 2]] * len(all_rows), trainer_state=None,
                                      **columns(all_rows))
    assert rewards[-1] is None  # not a gym row: TRL skips it for this function
    assert [r == 1.0 for r in rewards[:-1]] == [True, False, True, False]
    assert all(-1.0 <= r < 1.0 for r in rewards[1:-1:2])
    # Standard (string) format, binary accuracy, answers in the wrong markers (-1: format error).
    accuracy = integrations.make_trl_reward("accuracy")
    assert accuracy.__name__ == "rlve_accuracy"
    texts = [answer(p, BOXED) for p in problems()]
    assert accuracy(prompts=[""] * 4, completions=texts, **columns(rows)) == [1.0] * 4
    tags = [integrations.problem_row(p, "tinyzero") for p in problems()]
    assert integrations.trl_reward(prompts=[""] * 4, completions=texts, **columns(tags)) == [-1.0] * 4


def test_verl_compute_score_as_the_reward_managers_call_it():
    rows = [integrations.problem_row(p, "tinyzero") for p in problems()]
    responses = [answer(p, ANSWER_TAGS, correct=i < 2) for i, p in enumerate(problems())]
    scores = []
    for row, response in zip(rows, responses):  # NaiveRewardManager: keyword arguments, one response each
        scores.append(integrations.compute_score(data_source=row["data_source"], solution_str=response,
                                                 ground_truth=row["reward_model"]["ground_truth"],
                                                 extra_info=row["extra_info"]))
    assert [s["acc"] for s in scores] == [1.0, 1.0, 0.0, 0.0] and scores[0]["score"] == 1.0
    assert all(s["format_ok"] == 1.0 for s in scores)
    # The documented positional form, and extra_info absent (<answer> tags assumed).
    assert integrations.compute_score(rows[0]["data_source"], responses[0], rows[0]["reward_model"]["ground_truth"],
                                      None)["score"] == 1.0
    batch = integrations.compute_score_batch(  # BatchRewardManager's keywords
        data_sources=[r["data_source"] for r in rows], solution_strs=responses,
        ground_truths=[r["reward_model"]["ground_truth"] for r in rows], extra_infos=[r["extra_info"] for r in rows])
    assert batch == [s["score"] for s in scores]
    with pytest.raises(ValueError, match="not from the RLVE gym"):
        integrations.compute_score("openai/gsm8k", "#### 2", "2")


def test_scoring_uses_the_pools_time_limit():
    echo = EchoEnv()
    problem = echo.generate(0, 3)
    scorer = integrations.GymScorer(workers=1, timeout_s=1.0, extra_envs=[echo])
    try:
        verdicts = scorer.verify([problem, problem], ["<answer>sleep</answer>", f"\\boxed{{{problem.data['value']}}}"],
                                 [ANSWER_TAGS, BOXED])
    finally:
        scorer.close()
    assert [v.reason for v in verdicts] == ["timeout", "correct"] and verdicts[0].reward == -1.0
    assert integrations.scorer().settings == (integrations.DEFAULT_WORKERS, 10.0, 4096)


def test_envs_export_and_verify_cli(tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    envs.main(["export", "--collection", ",".join(ENV_NAMES), "--difficulties", "0-1", "--per-level", "2",
               "--prompt-format", "tinyzero", "--out", str(out)])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 8 and rows[0]["prompt"].startswith("A conversation")
    parsed = [integrations.row_problem(r)[0] for r in rows]
    assert [p.seed for p in parsed] == list(range(8))  # one global seed counter
    # Multiplication level 1 answered correctly twice (both samples), everything else wrong.
    responses = [{"index": i, "responses": [answer(p, ANSWER_TAGS, correct=p.env == "Multiplication"
                                                   and p.difficulty == 1)] * 2} for i, p in enumerate(parsed)]
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for r in responses))
    capsys.readouterr()
    envs.main(["verify", "--problems", str(out), "--responses", str(tmp_path / "r.jsonl"), "--workers", "0",
               "--out", str(tmp_path / "s.jsonl")])
    table = {tuple(line.split()[:2]): line.split()[2:] for line in capsys.readouterr().out.splitlines()[1:]}
    assert table["Multiplication", "1"][:2] == ["4", "1.0000"] and table["Multiplication", "0"][1] == "0.0000"
    assert table["all", "16"][0] == "0.2500"
    verdicts = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert len(verdicts) == 16 and sum(v["accuracy"] for v in verdicts) == 4
    # One response per problem, in order, without "index"; a bare Problem file with --markers.
    (tmp_path / "bare.jsonl").write_text("".join(p.to_json() + "\n" for p in parsed))
    (tmp_path / "one.jsonl").write_text("".join(json.dumps({"response": answer(p, BOXED)}) + "\n" for p in parsed))
    envs.main(["verify", "--problems", str(tmp_path / "bare.jsonl"), "--responses", str(tmp_path / "one.jsonl"),
               "--workers", "0", "--markers", "boxed"])
    assert capsys.readouterr().out.splitlines()[-1].split()[1:3] == ["8", "1.0000"]
    (tmp_path / "short.jsonl").write_text(json.dumps({"response": "x"}) + "\n")
    with pytest.raises(SystemExit):
        envs.main(["verify", "--problems", str(out), "--responses", str(tmp_path / "short.jsonl")])
    assert "1 response rows for 8 problems" in capsys.readouterr().err


def test_export_chat_rows_with_a_tokenizer_render_the_template(tmp_path):
    from rlve_jax.models import tiny_tokenizer
    from rlve_jax.gym.tokenizer import Tokenizer

    directory = tiny_tokenizer.build(["Multiplication"], tmp_path / "tok")
    envs.main(["export", "--collection", "Multiplication", "--difficulties", "0", "--per-level", "1",
               "--tokenizer", str(directory), "--out", str(tmp_path / "p.jsonl")])
    row = json.loads((tmp_path / "p.jsonl").read_text())
    expected = Tokenizer.from_dir(directory).apply_chat_template(row["prompt"])
    assert row["prompt_text"] == expected and row["prompt_text"].endswith("<|im_start|>assistant\n")
