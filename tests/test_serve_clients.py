"""The client examples against a live service on 127.0.0.1: TRL's GRPOTrainer (a tiny random model, 2 steps)
with problems from the service and rewards through its OpenEnv WebSocket (environment_factory), TRL's reward
function, and the verl-style reward functions over HTTP."""

import importlib.util
import json

import httpx
import pytest

from rlve_jax.gym import serve_client
from serve_for_tests import REPO, answer, live_server


def example(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def service_url(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("state"), "Multiplication,Sorting") as url:
        yield url


def test_verl_reward_functions_over_http(service_url, tmp_path, monkeypatch):
    monkeypatch.setenv(serve_client.URL_ENV, service_url)
    rows = example("verl_reward_service").write_rows(service_url, 6, str(tmp_path / "rows.jsonl"))
    assert [json.loads(line) for line in open(tmp_path / "rows.jsonl")] == rows
    before = httpx.get(f"{service_url}/health").json()["verdicts"]
    problems = [row["extra_info"] for row in rows]
    one = serve_client.compute_score(rows[0]["data_source"], answer(problems[0], True),
                                     rows[0]["reward_model"]["ground_truth"], rows[0]["extra_info"])
    assert one == {"score": 1.0, "acc": 1.0, "format_ok": 1.0}
    scores = serve_client.compute_score_batch([r["data_source"] for r in rows[1:]],
                                              [answer(p, i % 2 == 0) for i, p in enumerate(problems[1:])],
                                              [r["reward_model"]["ground_truth"] for r in rows[1:]])
    assert [s == 1.0 for s in scores] == [True, False, True, False, True]
    assert httpx.get(f"{service_url}/health").json()["verdicts"] == before + 6
    with pytest.raises(ValueError, match="not from the RLVE gym"):
        serve_client.compute_score_batch(["gsm8k"], ["1"], ["0"])
    with pytest.raises(serve_client.GymServiceError, match="unknown problem_id"):
        serve_client.compute_score("rlve/Sorting", "x", "99999999")


def test_trl_reward_function_and_openenv_rollout(service_url):
    """The two TRL adapters called as GRPOTrainer calls them, with right and wrong answers."""
    client = serve_client.GymClient(service_url)
    rows = [serve_client.problem_row(p) for p in client.draw(4)["problems"]]
    completions = [[{"role": "assistant", "content": answer(r["extra_info"], i % 2 == 0)}] for i, r in enumerate(rows)]
    rewards = serve_client.make_trl_reward(client, "accuracy")(completions, [r["extra_info"] for r in rows])
    assert rewards == [1.0, 0.0, 1.0, 0.0]
    answered, silent = serve_client.OpenEnvRollout(service_url), serve_client.OpenEnvRollout(service_url)
    answered.reset(**rows[0])
    reference = answer(rows[0]["extra_info"], True).split("\\boxed{")[1][:-1]
    assert answered.submit_answer(reference) == "Correct." and answered.get_reward() == 1.0
    silent.reset(**rows[1])
    assert silent.get_reward() == -1.0  # never answered: verified (and counted) as a response without an answer


def test_trl_grpo_trainer_with_openenv_environment_factory(service_url, tmp_path):
    """GRPOTrainer(environment_factory=...) over the service's OpenEnv WebSocket: problems from the scheduler,
    every rollout's reward from the service."""
    before = httpx.get(f"{service_url}/health").json()
    trainer = example("trl_grpo_service").train(service_url, str(tmp_path), steps=2, openenv=True)
    after = httpx.get(f"{service_url}/health").json()
    rewards = [entry["rewards/OpenEnvRollout/mean"] for entry in trainer.state.log_history
               if "rewards/OpenEnvRollout/mean" in entry]
    assert trainer.state.global_step == 2 and len(rewards) == 2
    # Each step's 4 rollouts (1 prompt x 4 generations) were verified by the service, one step each.
    assert after["verdicts"] - before["verdicts"] == 8
    assert 2 <= after["problems"] - before["problems"] <= 8  # drawn as the steps needed them, 4 at a time
