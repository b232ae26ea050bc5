"""The gym as datasets and reward functions for other RL frameworks (TRL, verl). JAX-free.

A dataset row (`python -m rlve_jax.gym.envs export`, or `problem_row`) is the row verl documents
(docs/preparation/prepare_data.rst), which TRL reads as well:

    {"data_source": "rlve/Sorting",                 # verl picks the reward function by it
     "prompt": [{"role": "user", "content": ...}],  # one user message, in every prompt format
     "ability": "rlve",
     "reward_model": {"style": "rule", "ground_truth": "<the Problem as JSON>"},
     "extra_info": {"env", "difficulty", "seed", "prompt_format", "answer_markers"}}

Scoring runs the environment's own verifier in an EnvPool worker (rlve_jax/gym/pool.py: a hard
wall-clock limit per answer, an address-space limit; a timeout or crash scores as a format error).
Scorers are thread-safe: verl's reward loop calls `compute_score` from an executor's threads.

TRL (GRPOTrainer, trl 1.x, calls each reward function with keyword arguments `prompts`, `completions`,
`completion_ids`, `trainer_state`, `log_extra`, `log_metric` and every dataset column but "prompt"):

    from rlve_jax.gym.integrations import trl_reward
    GRPOTrainer(model=..., reward_funcs=trl_reward, train_dataset=load_dataset("json", data_files=P))

verl 0.9 (its reward loop calls `compute_score(data_source=, solution_str=, ground_truth=, extra_info=, **kw)`):
`reward.custom_reward_function.path=pkg://rlve_jax.gym.integrations reward.custom_reward_function.name=compute_score`.
"""

from __future__ import annotations

import atexit
import json
import threading
from typing import Any, Iterable, Sequence

from rlve_jax.gym.env import ANSWER_TAGS, BOXED, Environment, Problem, Verdict
from rlve_jax.gym.pool import EnvPool
from rlve_jax.gym.prompts import BOXED_INSTRUCTION, TINYZERO_TEMPLATE
from rlve_jax.gym.tokenizer import Tokenizer

PROMPT_FORMATS = ("chat", "tinyzero", "raw")
DATA_SOURCE_PREFIX = "rlve/"
# The pool's limits (rlve_jax/defaults.py env.*): the original gave each verification 10 s.
DEFAULT_WORKERS, DEFAULT_TIMEOUT_S, DEFAULT_MEMORY_LIMIT_MB = 4, 10.0, 4096


# ---------------------------------------------------------------------------
# Dataset rows


def markers_for(prompt_format: str) -> tuple[str, str]:
    """The answer markers the verifier reads for a prompt format ("raw" states none: <answer> tags)."""
    if prompt_format not in PROMPT_FORMATS:
        raise ValueError(f"unknown prompt format {prompt_format!r}: one of {PROMPT_FORMATS}")
    return BOXED if prompt_format == "chat" else ANSWER_TAGS


def prompt_text(problem_prompt: str, prompt_format: str) -> str:
    """The prompt as this project trains on it: "chat" -> the problem ending in the boxed-answer
    instruction; "tinyzero" -> the plain User/Assistant text; "raw" -> the environment's text unchanged."""
    markers_for(prompt_format)
    if prompt_format == "chat":
        return f"{problem_prompt.rstrip()}\n\n{BOXED_INSTRUCTION}"
    if prompt_format == "tinyzero":
        return TINYZERO_TEMPLATE.format(prompt=problem_prompt)
    return problem_prompt


def wrap_prompt(problem_prompt: str, prompt_format: str) -> list[dict[str, str]]:
    """The prompt as one user message (what verl's RLHFDataset and TRL's conversational format load; the
    framework applies the model's chat template)."""
    return [{"role": "user", "content": prompt_text(problem_prompt, prompt_format)}]


def problem_row(problem: Problem, prompt_format: str = "chat", tokenizer: Tokenizer | None = None) -> dict:
    """One dataset row for `problem`. `prompt_text` is the exact text the policy sees: for "tinyzero" and "raw"
    (base models, no chat template) the text itself; for "chat", with a tokenizer, the chat template rendered."""
    row = {
        "data_source": DATA_SOURCE_PREFIX + problem.env,
        "prompt": wrap_prompt(problem.prompt, prompt_format),
        "ability": "rlve",
        "reward_model": {"style": "rule", "ground_truth": problem.to_json()},
        "extra_info": {"env": problem.env, "difficulty": problem.difficulty, "seed": problem.seed,
                       "prompt_format": prompt_format, "answer_markers": list(markers_for(prompt_format))},
    }
    if prompt_format != "chat":  # a base model's prompt: the text itself, no chat template
        row["prompt_text"] = prompt_text(problem.prompt, prompt_format)
    elif tokenizer is not None:
        row["prompt_text"] = tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True)
    return row


def row_problem(row: dict) -> tuple[Problem, tuple[str, str]]:
    """(problem, answer markers) of a dataset row; a bare Problem JSON record gets <answer> tags."""
    if "reward_model" not in row:
        return Problem(**row), ANSWER_TAGS
    return parse_ground_truth(row["reward_model"]["ground_truth"], row.get("extra_info"))


def parse_ground_truth(ground_truth: str | dict, extra_info: dict | None) -> tuple[Problem, tuple[str, str]]:
    """The problem serialised in `ground_truth` and the markers recorded in `extra_info`."""
    problem = Problem(**(json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth))
    markers = (extra_info or {}).get("answer_markers")
    return problem, (tuple(markers) if markers is not None and len(markers) == 2 else ANSWER_TAGS)


# ---------------------------------------------------------------------------
# Scoring


class GymScorer:
    """Verifies responses in an EnvPool (started on first use, closed at exit); one call at a time, from any
    thread (verl's reward managers call from an executor's threads)."""

    def __init__(self, workers: int = DEFAULT_WORKERS, timeout_s: float = DEFAULT_TIMEOUT_S,
                 memory_limit_mb: int | None = DEFAULT_MEMORY_LIMIT_MB, extra_envs: Sequence[Environment] = ()):
        if workers < 0 or timeout_s <= 0:
            raise ValueError(f"need workers >= 0 and timeout_s > 0, got {workers=} {timeout_s=}")
        self.settings = (workers, timeout_s, memory_limit_mb)
        self.extra_envs = tuple(extra_envs)  # instances outside the registry (pickled to the workers)
        self._pool: EnvPool | None = None
        self._lock = threading.Lock()  # EnvPool is not thread-safe: one batch at a time

    def _started_pool(self) -> EnvPool:
        if self._pool is None:
            self._pool = EnvPool(*self.settings, extra_envs=self.extra_envs)
            atexit.register(self.close)
        return self._pool

    def verify(self, problems: Sequence[Problem], responses: Sequence[str],
               markers: Sequence[tuple[str, str]]) -> list[Verdict]:
        """Verdicts in input order; items are batched per marker pair (one pool call each)."""
        verdicts: list[Verdict | None] = [None] * len(problems)
        with self._lock:
            pool = self._started_pool()
            for pair in dict.fromkeys(map(tuple, markers)):
                index = [i for i, m in enumerate(markers) if tuple(m) == pair]
                for i, v in zip(index, pool.verify([problems[i] for i in index], [responses[i] for i in index], pair)):
                    verdicts[i] = v
        return verdicts  # type: ignore[return-value]

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None


_SCORERS: dict[tuple, GymScorer] = {}
_SCORERS_LOCK = threading.Lock()


def scorer(workers: int = DEFAULT_WORKERS, timeout_s: float = DEFAULT_TIMEOUT_S,
           memory_limit_mb: int | None = DEFAULT_MEMORY_LIMIT_MB) -> GymScorer:
    """One shared scorer (and worker pool) per setting, whichever thread asks first."""
    with _SCORERS_LOCK:
        key = (workers, timeout_s, memory_limit_mb)
        if key not in _SCORERS:
            _SCORERS[key] = GymScorer(workers, timeout_s, memory_limit_mb)
        return _SCORERS[key]


def completion_text(completion: str | list[dict[str, Any]]) -> str:
    """A TRL completion: a string (standard format) or a list of messages (conversational), whose content is a
    string or a list of parts ({"type": "text", "text": ...}); the assistant's text, in order."""
    if isinstance(completion, str):
        return completion
    texts = []
    for message in completion:
        content = message.get("content") or ""
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.extend(part.get("text") or "" for part in content if part.get("type") == "text")
    return "".join(texts)


def make_trl_reward(reward_key: str = "reward", workers: int = DEFAULT_WORKERS,
                    timeout_s: float = DEFAULT_TIMEOUT_S, memory_limit_mb: int | None = DEFAULT_MEMORY_LIMIT_MB):
    """A TRL GRPOTrainer reward function: the verifier's shaped reward in [-1, 1] ("reward") or its
    binary accuracy ("accuracy"); None for rows that are not from the gym (TRL then skips them).

    Batch form (what GRPOTrainer passes: lists, one entry per completion, and any other keyword, ignored);
    a single completion with its row's columns unwrapped (`completions="...", reward_model={...}`) gets
    a list of one reward."""
    if reward_key not in ("reward", "accuracy"):
        raise ValueError(f"reward_key must be 'reward' or 'accuracy', got {reward_key!r}")

    def rlve_reward(completions: list, reward_model: list[dict] | None = None, extra_info: list[dict] | None = None,
                    data_source: list[str] | None = None, **kwargs) -> list[float | None]:
        if reward_model is None:
            raise ValueError("the dataset has no 'reward_model' column: write it with `python -m rlve_jax.gym.envs "
                             "export` (or rlve_jax.gym.integrations.problem_row)")
        if isinstance(reward_model, dict):  # one completion: its row's columns, unwrapped
            completions, reward_model = [completions], [reward_model]
            extra_info = [extra_info] if extra_info is not None else None
            data_source = [data_source] if data_source is not None else None
        extra_info = extra_info or [None] * len(completions)
        data_source = data_source or [DATA_SOURCE_PREFIX] * len(completions)
        ours = [i for i, source in enumerate(data_source) if str(source).startswith(DATA_SOURCE_PREFIX)]
        parsed = [parse_ground_truth(reward_model[i]["ground_truth"], extra_info[i]) for i in ours]
        verdicts = scorer(workers, timeout_s, memory_limit_mb).verify(
            [p for p, _ in parsed], [completion_text(completions[i]) for i in ours], [m for _, m in parsed])
        rewards: list[float | None] = [None] * len(completions)
        for i, v in zip(ours, verdicts):
            rewards[i] = v.reward if reward_key == "reward" else float(v.accuracy)
        return rewards

    rlve_reward.__name__ = f"rlve_{reward_key}"  # TRL logs each reward function under its name
    return rlve_reward


trl_reward = make_trl_reward()


def _verl_result(verdict: Verdict) -> dict[str, float]:
    return {"score": verdict.reward, "acc": float(verdict.accuracy), "format_ok": float(verdict.format_ok)}


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  workers: int = DEFAULT_WORKERS, timeout_s: float = DEFAULT_TIMEOUT_S,
                  memory_limit_mb: int | None = DEFAULT_MEMORY_LIMIT_MB, **verl_kwargs: Any) -> dict[str, float]:
    """verl's custom reward function: {"score": reward in [-1, 1], "acc": 0/1, "format_ok": 0/1}.

    The limits can be set with verl's `+reward.custom_reward_function.reward_kwargs.workers=8` (etc.);
    other keywords verl's reward managers pass (reward_router_address, reward_model_tokenizer) are not used.
    """
    return compute_score_batch([data_source], [solution_str], [ground_truth], [extra_info], workers, timeout_s,
                               memory_limit_mb, as_dict=True)[0]


def compute_score_batch(data_sources: Iterable[str], solution_strs: Sequence[str], ground_truths: Iterable[str],
                        extra_infos: Iterable[dict | None] | None = None, workers: int = DEFAULT_WORKERS,
                        timeout_s: float = DEFAULT_TIMEOUT_S, memory_limit_mb: int | None = DEFAULT_MEMORY_LIMIT_MB,
                        as_dict: bool = False, **verl_kwargs: Any) -> list:
    """verl's legacy batch reward manager entry (verl.workers.reward_manager.batch, outside the reward loop): one
    pool call for the batch; rewards as floats (what every version of that manager reads), dicts with `as_dict`."""
    data_sources = list(data_sources)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(data_sources)
    foreign = sorted({str(s) for s in data_sources if not str(s).startswith(DATA_SOURCE_PREFIX)})
    if foreign:
        raise ValueError(f"data sources {foreign} are not from the RLVE gym (rows of `envs export` start with "
                         f"{DATA_SOURCE_PREFIX!r}); dispatch them to their own reward function")
    parsed = [parse_ground_truth(g, e) for g, e in zip(ground_truths, extra_infos)]
    verdicts = scorer(workers, timeout_s, memory_limit_mb).verify(
        [p for p, _ in parsed], list(solution_strs), [m for _, m in parsed])
    return [_verl_result(v) if as_dict else v.reward for v in verdicts]
