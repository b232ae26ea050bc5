"""The gym from TRL and verl: rows, reward functions called as the frameworks call them, `envs verify`."""

import asyncio
import importlib
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
    (message,) = row["prompt"]  # every format: one user message (verl's RLHFDataset loads nothing else)
    assert message["role"] == "user"
    if prompt_format == "chat":
        assert message["content"].endswith("\\boxed{}.") and "prompt_text" not in row
        assert row["extra_info"]["answer_markers"] == list(BOXED)
    elif prompt_format == "tinyzero":
        assert message["content"] == row["prompt_text"] == TINYZERO_TEMPLATE.format(prompt=problem.prompt)
        assert row["extra_info"]["answer_markers"] == list(ANSWER_TAGS)
    else:
        assert message["content"] == row["prompt_text"] == problem.prompt


def test_trl_reward_function_with_grpo_trainers_arguments():
    """GRPOTrainer calls reward_func(prompts=, completions=, completion_ids=, trainer_state=, log_extra=,
    log_metric=, **columns)."""
    rows = [integrations.problem_row(p, "chat") for p in problems()]
    foreign = {"data_source": "gsm8k", "prompt": "1+1?", "ability": "math",
               "reward_model": {"style": "rule", "ground_truth": "2"}, "extra_info": {}}
    completions = [[{"role": "assistant", "content": answer(p, BOXED, correct=i % 2 == 0)}]
                   for i, p in enumerate(problems())] + [[{"role": "assistant", "content": "2"}]]
    all_rows = rows + [foreign]
    rewards = integrations.trl_reward(prompts=[r["prompt"] for r in all_rows], completions=completions,
                                      completion_ids=[[1, 2]] * len(all_rows), trainer_state=None,
                                      log_extra=print, log_metric=print, **columns(all_rows))
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
    # Content as a list of parts (multimodal message format), and the single form: one row's columns unwrapped.
    parts = [{"role": "assistant", "content": [{"type": "text", "text": "The answer: "},
                                               {"type": "text", "text": texts[0]}]}]
    single = {key: value[0] for key, value in columns(rows).items()}
    assert integrations.trl_reward(prompts=rows[0]["prompt"], completions=parts, **single) == [1.0]


# verl does not install in CI (verl 0.9.1 pulls ray and pins an older transformers), so its calling
# convention is replayed from a pinned copy of its source: verl 0.9.1 (the PyPI wheel verl-0.9.1-py3-none-any.whl).


def verl_load_custom_reward_fn(path: str, name: str, reward_kwargs: dict):
    """verl/trainer/ppo/reward.py get_custom_reward_fn + verl/utils/import_utils.py load_module (the pkg:// branch)
    + _call_with_kwargs: the function verl's reward managers call, with reward_kwargs merged in."""
    assert path.startswith("pkg://")
    raw_fn = getattr(importlib.import_module(path[len("pkg://"):].replace("/", ".")), name)
    return lambda *args, **kwargs: raw_fn(*args, **{**kwargs, **reward_kwargs})


async def verl_run_single(loop, compute_score, row: dict, response_str: str, reward_router_address=None):
    """verl/experimental/reward_loop/reward_manager/naive.py NaiveRewardManager.run_single (the synchronous
    reward function branch; the same call in dapo.py, gdpo.py and limited.py), on one dataset row."""
    extra_info = dict(row.get("extra_info", {}))
    extra_info["num_turns"] = None
    extra_info["rollout_reward_scores"] = {}
    extra_reward_kwargs = ({"reward_router_address": reward_router_address, "reward_model_tokenizer": object()}
                           if reward_router_address is not None else {})
    result = await loop.run_in_executor(None, lambda: compute_score(
        data_source=row["data_source"], solution_str=response_str, ground_truth=row["reward_model"]["ground_truth"],
        extra_info=extra_info, **extra_reward_kwargs))
    if isinstance(result, dict):
        return {"reward_score": result["score"], "reward_extra_info": dict(result)}
    return {"reward_score": result, "reward_extra_info": {"acc": result}}


def test_verl_reward_loop_calls_compute_score_concurrently_with_its_extra_keywords():
    rows = [integrations.problem_row(p) for p in problems()]
    responses = [answer(p, BOXED, correct=i < 2) for i, p in enumerate(problems())]
    compute_score = verl_load_custom_reward_fn("pkg://rlve_jax.gym.integrations", "compute_score",
                                               {"workers": 2, "timeout_s": 10.0})

    async def reward_loop():  # the reward loop runs every item of a batch at once (asyncio.gather)
        loop = asyncio.get_running_loop()
        return await asyncio.gather(*(verl_run_single(loop, compute_score, row, response,
                                                      reward_router_address="127.0.0.1:1" if i % 2 else None)
                                      for i, (row, response) in enumerate(zip(rows, responses))))

    results = asyncio.run(reward_loop())
    assert [r["reward_extra_info"]["acc"] for r in results] == [1.0, 1.0, 0.0, 0.0]
    assert results[0]["reward_score"] == 1.0 and all(r["reward_extra_info"]["format_ok"] == 1.0 for r in results)
    assert integrations.scorer(2, 10.0, integrations.DEFAULT_MEMORY_LIMIT_MB)._pool is not None  # one shared pool
    # The documented positional form, extra_info absent (<answer> tags assumed), and a foreign row.
    tags = integrations.problem_row(problems()[0], "tinyzero")
    assert integrations.compute_score(tags["data_source"], answer(problems()[0], ANSWER_TAGS),
                                      tags["reward_model"]["ground_truth"], None)["score"] == 1.0
    with pytest.raises(ValueError, match="not from the RLVE gym"):
        integrations.compute_score("openai/gsm8k", "#### 2", "2")


def test_verl_legacy_batch_reward_manager_call():
    """verl 0.9.1 verl/workers/reward_manager/batch.py BatchRewardManager.verify: compute_score(data_sources=,
    solution_strs=, ground_truths=, extra_infos=, **reward_kwargs); it reads floats (or dicts with "score")."""
    rows = [integrations.problem_row(p) for p in problems()]
    responses = [answer(p, BOXED, correct=i % 2 == 0) for i, p in enumerate(problems())]
    scores = integrations.compute_score_batch(
        data_sources=[r["data_source"] for r in rows], solution_strs=responses,
        ground_truths=[r["reward_model"]["ground_truth"] for r in rows], extra_infos=[r["extra_info"] for r in rows],
        workers=2)
    assert [s == 1.0 for s in scores] == [True, False, True, False]


def test_exports_load_in_verls_and_trls_dataset_loaders(tmp_path):
    """Parquet and JSONL exports, read as verl 0.9.1's RLHFDataset reads them (datasets.load_dataset by suffix,
    then tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True)), and as TRL reads them."""
    from datasets import load_dataset
    from transformers import AutoTokenizer
    from rlve_jax.models import tiny_tokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_tokenizer.build(["Multiplication"], tmp_path / "tok"))
    for prompt_format in integrations.PROMPT_FORMATS:
        paths = [tmp_path / f"{prompt_format}.parquet", tmp_path / f"{prompt_format}.jsonl"]
        for path in paths:
            envs.main(["export", "--collection", "Multiplication,Sorting", "--difficulties", "0-1", "--per-level", "1",
                       "--prompt-format", prompt_format, "--out", str(path)])
        loaded = [load_dataset(path.suffix[1:].replace("jsonl", "json"), data_files=str(path))["train"]
                  for path in paths]
        assert loaded[0].to_list() == loaded[1].to_list() and len(loaded[0]) == 4
        for row in loaded[0]:
            ids = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True)
            text = tokenizer.decode(ids["input_ids"] if isinstance(ids, dict) else ids)
            assert text.endswith("<|im_start|>assistant\n") and row["prompt"][0]["content"] in text
            assert integrations.row_problem(row)[1] == integrations.markers_for(prompt_format)
    rows = envs.read_rows(str(tmp_path / "chat.parquet"))  # `envs verify --problems` reads Parquet too
    assert [integrations.row_problem(r)[0].env for r in rows] == ["Multiplication"] * 2 + ["Sorting"] * 2


def test_trl_grpo_trainer_trains_a_step_on_an_export_with_the_reward_function(tmp_path):
    """One GRPOTrainer step (trl, installed in CI) of a tiny random policy on an exported Parquet file, with the
    reward function as TRL calls it; then TRL's recorded keywords replayed with right answers."""
    import transformers
    from datasets import load_dataset
    from trl import GRPOConfig, GRPOTrainer
    from rlve_jax.models import tiny_tokenizer

    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_tokenizer.build(["Multiplication"], tmp_path / "tok"))
    envs.main(["export", "--collection", "Multiplication", "--difficulties", "0", "--per-level", "2",
               "--out", str(tmp_path / "p.parquet")])
    config = transformers.Qwen2Config(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32,
                                      num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1)
    calls = []
    reward = integrations.make_trl_reward(workers=1)

    def recording_reward(**kwargs):
        calls.append(kwargs)
        return reward(**kwargs)

    recording_reward.__name__ = reward.__name__
    args = GRPOConfig(output_dir=str(tmp_path / "run"), per_device_train_batch_size=4, num_generations=2,
                      max_completion_length=4, max_steps=1, report_to="none", use_cpu=True, save_strategy="no")
    trainer = GRPOTrainer(model=transformers.Qwen2ForCausalLM(config), reward_funcs=recording_reward, args=args,
                          train_dataset=load_dataset("parquet", data_files=str(tmp_path / "p.parquet"))["train"],
                          processing_class=tokenizer)
    trainer.train()
    (kwargs,) = calls
    assert {"prompts", "completions", "completion_ids", "trainer_state", "reward_model", "extra_info"} <= set(kwargs)
    assert all(c[0]["role"] == "assistant" for c in kwargs["completions"])  # conversational: message lists
    assert trainer.state.log_history[0]["rewards/rlve_reward/mean"] == -1.0  # 4 random tokens: no boxed answer
    right = []
    for reward_model in kwargs["reward_model"]:
        problem, _ = integrations.parse_ground_truth(reward_model["ground_truth"], None)
        right.append([{"role": "assistant", "content": answer(problem, BOXED)}])
    assert reward(**{**kwargs, "completions": right}) == [1.0] * len(right)


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
    assert len(rows) == 8 and rows[0]["prompt"][0]["content"].startswith("A conversation")
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
