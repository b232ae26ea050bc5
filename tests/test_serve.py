"""The gym service: the same levels as the in-process scheduler, exactly-once retries, a request id bound to
one body, resume, auth, limits, OpenEnv's own client, Prometheus metrics."""

import asyncio
import json
import subprocess
import sys

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from rlve_jax.gym import registry
from rlve_jax.gym.env import BOXED
from rlve_jax.gym.scheduler import Rollout
from rlve_jax.gym.serve import create_app
from rlve_jax.gym.serve_service import GymService, SchedulerSettings
from serve_for_tests import REPO, answer, live_server

SETTINGS = SchedulerSettings(initial_difficulty=0, window=2, promote_threshold=0.75, min_samples=6, seed=3)


def service(state_dir, settings=SETTINGS, collection="C4"):
    return GymService(state_dir, collection, settings, "chat", workers=2, timeout_s=10.0)


def as_json(state):
    return json.loads(json.dumps(state))


def test_the_service_is_jax_free():
    code = ("import sys, rlve_jax.serve, rlve_jax.gym.serve_client; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib', 'flax', 'optax'));"
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_service_levels_follow_the_in_process_scheduler_exactly(tmp_path):
    """Draws, verdicts and levels equal the trainer's scheduler fed the same verdicts, request by request."""
    names = registry.resolve("C4")
    envs = {name: registry.make(name) for name in names}
    # The JAX trainer's own scheduler for the same config (min_samples = min_prompts * G = 3 * 2).
    from rlve_jax import defaults

    config = defaults.base_config()
    config.scheduler.update(initial_difficulty=0, window=2, promote_threshold=0.75, min_prompts=3)
    config.rollout.samples_per_prompt, config.seed = 2, 3
    local = defaults.settings(config).scheduler.build(names, {n: e.max_difficulty for n, e in envs.items()})
    with TestClient(create_app(service(tmp_path / "state"))) as client:
        for step in range(10):
            drawn = client.post("/draw", json={"n": 8, "request_id": f"draw-{step}"}).json()["problems"]
            draws = [local.sample() for _ in range(8)]
            assert [(p["env"], p["difficulty"], p["seed"]) for p in drawn] == [tuple(d) for d in draws]
            responses = [answer(p, correct=(p["seed"] % 7 != 0)) for p in drawn]
            result = client.post("/verify", json={"request_id": f"verify-{step}", "items": [
                {"problem_id": p["problem_id"], "response": r} for p, r in zip(drawn, responses)]}).json()
            problems = [envs[d.env].generate(d.difficulty, d.seed) for d in draws]
            verdicts = [envs[p.env].verify(p, r, BOXED) for p, r in zip(problems, responses)]
            assert [(v["reward"], v["accuracy"]) for v in result["verdicts"]] == [(v.reward, v.accuracy)
                                                                                 for v in verdicts]
            assert result["promoted"] == local.update(Rollout(p.env, p.difficulty, float(v.accuracy))
                                                      for p, v in zip(problems, verdicts))
            assert client.get("/scheduler").json() == as_json(local.state_dict())
        assert max(local.upper.values()) >= 2  # the levels did move
        # A retry of an applied request is answered from the log and counts nothing again.
        again = client.post("/verify", json={"request_id": "verify-9", "items": [
            {"problem_id": p["problem_id"], "response": r} for p, r in zip(drawn, responses)]}).json()
        assert again["replayed"] and again["verdicts"] == result["verdicts"]
        assert client.get("/scheduler").json() == as_json(local.state_dict())
        assert client.get("/health").json()["verdicts"] == 80
        conflict = client.post("/verify", json={"request_id": "draw-0", "items": [{"problem_id": 0, "response": ""}]})
        assert conflict.status_code == 409
    # A restart resumes the same state; other settings on the same state are refused.
    with TestClient(create_app(service(tmp_path / "state"))) as client:
        assert client.get("/scheduler").json() == as_json(local.state_dict())
        assert client.post("/draw", json={"n": 8, "request_id": "draw-9"}).json()["replayed"]
        assert client.post("/draw", json={"n": 1}).json()["problems"][0]["seed"] == local.sample().seed
    with pytest.raises(ValueError, match="other settings"):
        service(tmp_path / "state", SchedulerSettings(min_samples=7))


def test_a_request_id_reused_with_another_body_is_refused(tmp_path):
    """Adapters assign verdicts by position: an old response for other problems would reward the wrong samples."""
    gym = service(tmp_path, collection="Multiplication")
    with TestClient(create_app(gym)) as client:
        drawn = client.post("/draw", json={"n": 5, "request_id": "d"}).json()["problems"]
        items = [{"problem_id": p["problem_id"], "response": answer(p, True)} for p in drawn]
        assert not client.post("/verify", json={"request_id": "r", "items": items[:2]}).json()["replayed"]
        assert client.post("/verify", json={"request_id": "r", "items": items[:2]}).json()["replayed"]  # a retry
        for reused in ({"request_id": "r", "items": items[2:]},
                       {"request_id": "r", "items": [items[0], {**items[1], "response": "other"}]}):
            refused = client.post("/verify", json=reused)
            assert refused.status_code == 409 and "another body" in refused.json()["detail"], refused.text
        assert client.post("/draw", json={"n": 4, "request_id": "d"}).status_code == 409
        assert client.post("/draw", json={"n": 5, "request_id": "d"}).json()["replayed"]
        assert client.get("/health").json()["verdicts"] == 2

        async def racing():  # two bodies under one new id at once: one is applied, the other refused
            return await asyncio.gather(gym.verify([(drawn[2]["problem_id"], "a")], "race"),
                                        gym.verify([(drawn[3]["problem_id"], "b")], "race"), return_exceptions=True)

        results = client.portal.call(racing)
        assert sorted(type(r).__name__ for r in results) == ["RequestConflict", "dict"], results
        assert client.get("/health").json()["verdicts"] == 3


def test_static_scheduler_never_moves(tmp_path):
    static = SchedulerSettings(kind="static", static_lo=1, static_hi=2)
    with TestClient(create_app(service(tmp_path, static, "Multiplication"))) as client:
        drawn = client.post("/draw", json={"n": 16}).json()["problems"]
        client.post("/verify", json={"items": [{"problem_id": p["problem_id"], "response": answer(p, True)}
                                               for p in drawn]})
        assert {p["difficulty"] for p in drawn} <= {1, 2}
        assert client.get("/scheduler").json()["upper"] == {"Multiplication": 2}


def test_auth_body_limit_and_metrics(tmp_path):
    with TestClient(create_app(service(tmp_path, collection="Multiplication,Sorting"), token="s3cret",
                               max_body_bytes=4096)) as client:
        assert client.get("/health").status_code == 200  # open: for load balancers
        assert client.post("/draw", json={"n": 1}).status_code == 401
        assert client.post("/draw", json={"n": 1}, headers={"Authorization": "Bearer nope"}).status_code == 401
        auth = {"Authorization": "Bearer s3cret"}
        drawn = client.post("/draw", json={"n": 4}, headers=auth).json()["problems"]
        big = client.post("/verify", headers=auth, json={"items": [{"problem_id": 0, "response": "x" * 5000}]})
        assert big.status_code == 413 and "limit" in big.json()["detail"]
        client.post("/verify", headers=auth, json={"items": [{"problem_id": p["problem_id"], "response": answer(
            p, True)} for p in drawn]})
        families = {f.name: f for f in text_string_to_metric_families(client.get("/metrics", headers=auth).text)}
        levels = {s.labels["env"]: s.value for s in families["rlve_difficulty"].samples}
        assert levels == {"Multiplication": 0, "Sorting": 0}
        verdicts = sum(s.value for s in families["rlve_verdicts"].samples if s.name == "rlve_verdicts_total")
        assert verdicts == 4
        at_h = {s.labels["env"]: s.value for s in families["rlve_samples_at_h"].samples}
        assert sum(at_h.values()) == 4
        latency = [s for s in families["rlve_verify_latency_seconds"].samples if s.name.endswith("_count")]
        assert sum(s.value for s in latency) == 4
        with pytest.raises(Exception):  # the WebSocket needs the token too
            with client.websocket_connect("/ws") as ws:
                ws.send_json({"type": "state"})
                ws.receive_json()


def test_openenv_client_and_http_endpoints(tmp_path):
    """openenv-core's own GenericEnvClient (WebSocket) and the stateless HTTP reset/step."""
    from openenv.core.env_server.types import ResetResponse, SchemaResponse, StepResponse
    from openenv.core.generic_client import GenericEnvClient

    with live_server(tmp_path, "Multiplication", "--min-samples", "4") as url:
        with GenericEnvClient(base_url=url).sync() as env:
            for _ in range(4):
                reset = env.reset()
                assert reset.done is False and reset.observation["env"] == "Multiplication"
                step = env.step({"response": answer(reset.observation, True)})
                assert step.done is True and step.reward == 1.0 and step.observation["accuracy"] is True
            assert env.state()["step_count"] == 1  # steps of the current episode (since its reset)
            with pytest.raises(RuntimeError, match="seed"):
                env.reset(seed=5)
        http = httpx.Client(base_url=url, timeout=30)
        reset = ResetResponse.model_validate(http.post("/reset", json={"episode_id": "e1"}).json())
        step = StepResponse.model_validate(http.post("/step", json={"action": {
            "problem_id": reset.observation["problem_id"], "response": answer(reset.observation, False)}}).json())
        assert step.done and step.reward < 1.0
        assert SchemaResponse.model_validate(http.get("/schema").json()).action["properties"]["response"]
        # 4 correct verdicts at level 0 with min_samples=4: promoted to level 1.
        assert http.get("/env/Multiplication").json()["difficulty"] == 1
