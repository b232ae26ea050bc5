"""A client of the gym service (rlve_jax/gym/serve.py) and the adapters built on it: a TRL dataset and reward
function, and verl-style reward functions, whose problems and rewards come from the service (so its adaptive
scheduler sees every verdict). JAX-free; needs httpx.

    client = GymClient("http://127.0.0.1:8000")                 # token: RLVE_SERVE_TOKEN or token=
    batch = client.draw(64)                                        # problems from the scheduler
    verdicts = client.verify([(p["problem_id"], text) for p, text in zip(batch["problems"], outputs)])

Every draw/verify carries a request id; a retry after a network error sends the same id, so the service
counts the verdicts once however often the request is sent.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any, Iterator, Sequence

import httpx

from rlve_jax.gym.integrations import DATA_SOURCE_PREFIX, completion_text

URL_ENV, TOKEN_ENV = "RLVE_SERVE_URL", "RLVE_SERVE_TOKEN"


class GymServiceError(RuntimeError):
    """The service refused a request (4xx): its one-line reason."""


class GymClient:
    """Draw and verify over HTTP, retrying transport errors with the same request id."""

    def __init__(self, url: str | None = None, token: str | None = None, timeout_s: float = 120.0,
                 retries: int = 5):
        url = url or os.environ.get(URL_ENV)
        if not url:
            raise ValueError(f"no service URL: pass url= or set {URL_ENV}")
        token = token if token is not None else os.environ.get(TOKEN_ENV)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout_s)
        self.retries = retries

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST with retries on transport errors and 5xx (same body, so the same request id)."""
        for attempt in range(self.retries + 1):
            try:
                response = self.http.post(path, json=body)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
            else:
                if response.status_code < 500 or attempt == self.retries:
                    break
            time.sleep(min(0.2 * 2**attempt, 5.0))
        if response.status_code >= 400:
            raise GymServiceError(f"{path}: HTTP {response.status_code}: {response.json().get('detail')}")
        return response.json()

    def get(self, path: str) -> Any:
        response = self.http.get(path)
        if response.status_code >= 400:
            raise GymServiceError(f"{path}: HTTP {response.status_code}: {response.json().get('detail')}")
        return response.json() if "json" in response.headers.get("content-type", "") else response.text

    def draw(self, n: int, request_id: str | None = None) -> dict[str, Any]:
        return self.post("/draw", {"n": n, "request_id": request_id or uuid.uuid4().hex})

    def verify(self, items: Sequence[tuple[int, str]], request_id: str | None = None) -> dict[str, Any]:
        """Verdicts for (problem_id, response) pairs, applied to the scheduler as one update (one step)."""
        body = {"items": [{"problem_id": int(p), "response": r} for p, r in items],
                "request_id": request_id or uuid.uuid4().hex}
        return self.post("/verify", body)

    def close(self) -> None:
        self.http.close()


def problem_row(problem: dict[str, Any]) -> dict[str, Any]:
    """A drawn problem as a TRL/verl dataset row; the ground truth is the service's problem id."""
    return {"data_source": DATA_SOURCE_PREFIX + problem["env"], "prompt": problem["prompt"], "ability": "rlve",
            "reward_model": {"style": "rule", "ground_truth": str(problem["problem_id"])},
            "extra_info": {"problem_id": problem["problem_id"], "env": problem["env"],
                           "difficulty": problem["difficulty"], "seed": problem["seed"]}}


def problem_stream(url: str | None = None, token: str | None = None, batch: int = 16) -> Iterator[dict[str, Any]]:
    """Endless dataset rows, drawn from the scheduler `batch` at a time (each draw sees the latest levels):
    `datasets.IterableDataset.from_generator(problem_stream, gen_kwargs={"url": ...})` feeds TRL (the arguments
    are plain values: datasets pickles them)."""
    client = GymClient(url, token)
    while True:
        for problem in client.draw(batch)["problems"]:
            yield problem_row(problem)


def make_trl_reward(client: GymClient, reward_key: str = "reward"):
    """A TRL GRPOTrainer reward function: one verify request per call (the trainer's step), so the service's
    scheduler counts the step's verdicts as the JAX trainer would."""
    if reward_key not in ("reward", "accuracy"):
        raise ValueError(f"reward_key must be 'reward' or 'accuracy', got {reward_key!r}")

    def rlve_service_reward(completions: list, extra_info: list[dict], **kwargs) -> list[float]:
        result = client.verify([(info["problem_id"], completion_text(c)) for info, c in zip(extra_info, completions)])
        return [float(v[reward_key]) for v in result["verdicts"]]

    rlve_service_reward.__name__ = f"rlve_service_{reward_key}"
    return rlve_service_reward


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  url: str | None = None, token: str | None = None, **verl_kwargs: Any) -> dict[str, float]:
    """verl's custom reward function over HTTP: {"score", "acc", "format_ok"} for one response
    (`reward.custom_reward_function.path=pkg://rlve_jax.gym.serve_client`; the URL from reward_kwargs or
    RLVE_SERVE_URL). Other keywords verl's reward loop passes (reward_router_address, ...) are not used."""
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], url, token,
                               as_dict=True)[0]


def compute_score_batch(data_sources: Sequence[str], solution_strs: Sequence[str], ground_truths: Sequence[str],
                        extra_infos: Sequence[dict | None] | None = None, url: str | None = None,
                        token: str | None = None, as_dict: bool = False, **verl_kwargs: Any) -> list:
    """verl's batch reward manager entry: one verify request for the batch; floats, or dicts with `as_dict`."""
    foreign = sorted({str(s) for s in data_sources if not str(s).startswith(DATA_SOURCE_PREFIX)})
    if foreign:
        raise ValueError(f"data sources {foreign} are not from the RLVE gym service")
    verdicts = _client(url, token).verify([(int(g), s) for g, s in zip(ground_truths, solution_strs)])["verdicts"]
    if not as_dict:
        return [v["reward"] for v in verdicts]
    return [{"score": v["reward"], "acc": float(v["accuracy"]), "format_ok": float(v["format_ok"])}
            for v in verdicts]


_CLIENTS: dict[tuple[str | None, str | None], GymClient] = {}


def _client(url: str | None, token: str | None) -> GymClient:
    """One client (connection pool) per service, reused across reward calls."""
    key = (url or os.environ.get(URL_ENV), token)
    if key not in _CLIENTS:
        _CLIENTS[key] = GymClient(url, token)
    return _CLIENTS[key]


class OpenEnvRollout:
    """One rollout's environment for TRL's `GRPOTrainer(environment_factory=...)`, over the service's OpenEnv
    WebSocket (openenv-core's GenericEnvClient).

    The dataset comes from the service (`problem_stream`), so the G rollouts of a group share their problem:
    `reset(**row)` binds this rollout to the row's problem id, the model answers through the `submit_answer`
    tool, and `get_reward` is the service's verdict (a rollout that never answered is verified as an empty
    response, so the scheduler counts it, as training counts a response without an answer).
    """

    def __init__(self, url: str | None = None):
        from openenv.core.generic_client import GenericEnvClient

        self.env = GenericEnvClient(base_url=url or os.environ[URL_ENV]).sync()
        self.env.connect()
        self.problem_id: int | None = None
        self.verdict: dict[str, Any] | None = None

    def reset(self, extra_info: dict | None = None, **row) -> None:
        if not extra_info or "problem_id" not in extra_info:
            raise ValueError("OpenEnvRollout needs dataset rows from the service (serve_client.problem_stream)")
        self.problem_id, self.verdict = int(extra_info["problem_id"]), None
        return None  # the prompt is the row's

    def submit_answer(self, answer: str) -> str:
        """Submit the final answer to the problem; call this once, when done reasoning.

        Args:
            answer: The final answer, written in the output format the problem asks for.

        Returns:
            Whether the answer was correct.
        """
        if self.verdict is not None:
            return "An answer was already submitted."
        self.verdict = self.env.step({"problem_id": self.problem_id, "response": f"\\boxed{{{answer}}}"}).observation
        return "Correct." if self.verdict["accuracy"] else "Not correct."

    def get_reward(self) -> float:
        if self.verdict is None:
            self.verdict = self.env.step({"problem_id": self.problem_id, "response": ""}).observation
        return float(self.verdict["reward"])
