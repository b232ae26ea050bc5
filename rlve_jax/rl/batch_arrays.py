"""A batch source's groups as numpy arrays: what a checkpoint saves with orbax (runtime/checkpoint.py) and what
processes send each other. Verified groups (a batch collected ahead) and pending groups (partial rollouts' carried
rows) become ragged columns, each a flat `values` array and the `lengths` that cut it back into rows; what is
JSON-shaped (a problem, its verdicts, a row's sampling settings) rides as one UTF-8 header per group.

Tokens, float32 logprobs, key data and policy versions survive exactly (float32 stays float32, int64 int64).
"""

from __future__ import annotations

import dataclasses
import io
import json
from typing import Sequence

import numpy as np

from rlve_jax.generation.engine import Row
from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.rl.rollout import Group, PendingGroup

Arrays = dict[str, np.ndarray]


def ragged(rows: Sequence[Sequence], dtype) -> Arrays:
    """Rows of any lengths -> {"values": [sum of lengths], "lengths": [rows]}."""
    lengths = np.array([len(r) for r in rows], np.int64)
    values = np.concatenate([np.asarray(r, dtype).reshape(-1) for r in rows]) if len(rows) else np.zeros(0, dtype)
    return {"values": values.astype(dtype), "lengths": lengths}


def unragged(column: Arrays) -> list[np.ndarray]:
    """The rows of a `ragged` column."""
    return np.split(column["values"], np.cumsum(column["lengths"])[:-1]) if len(column["lengths"]) else []


def texts(values: Sequence[str]) -> Arrays:
    return ragged([np.frombuffer(v.encode(), np.uint8) for v in values], np.uint8)


def from_texts(column: Arrays) -> list[str]:
    return [row.tobytes().decode() for row in unragged(column)]


def groups_to_arrays(groups: Sequence[Group]) -> dict[str, Arrays]:
    """Verified groups: a header per group (problem, texts, truncation, verdicts), the prompts, and per response
    its tokens and sampler logprobs (float32)."""
    headers = [json.dumps({"problem": g.problem.to_json(), "texts": g.response_texts,
                           "truncated": [bool(t) for t in g.truncated],
                           "verdicts": [dataclasses.asdict(v) for v in g.verdicts]}) for g in groups]
    return {"header": texts(headers), "prompt": ragged([g.prompt_tokens for g in groups], np.int32),
            "tokens": ragged([r for g in groups for r in g.response_tokens], np.int32),
            "logprobs": ragged([x for g in groups for x in g.sampler_logprobs], np.float32)}


def groups_from_arrays(arrays: dict[str, Arrays]) -> list[Group]:
    tokens, logprobs = iter(unragged(arrays["tokens"])), iter(unragged(arrays["logprobs"]))
    groups = []
    for header, prompt in zip(from_texts(arrays["header"]), unragged(arrays["prompt"])):
        h = json.loads(header)
        n = len(h["verdicts"])
        groups.append(Group(Problem.from_json(h["problem"]), prompt.tolist(),
                            [next(tokens).tolist() for _ in range(n)], list(h["texts"]),
                            [next(logprobs) for _ in range(n)], list(h["truncated"]),
                            [Verdict(**v) for v in h["verdicts"]]))
    return groups


ROW_SETTINGS = ("row_id", "max_new_tokens", "temperature", "top_p", "top_k", "finished", "done")


def pending_to_arrays(groups: Sequence[PendingGroup]) -> dict[str, Arrays]:
    """Pending groups: a header per group (problem, draw, each row's settings and state), the prompts, and per row
    its tokens, sampler logprobs (float32), policy versions and key data."""
    rows = [r for g in groups for r in g.rows]
    headers = [json.dumps({"problem": g.problem.to_json(), "draw": list(g.draw),
                           "rows": [{f: getattr(r, f) for f in ROW_SETTINGS} for r in g.rows]}) for g in groups]
    return {"header": texts(headers), "prompt": ragged([g.prompt_tokens for g in groups], np.int32),
            "tokens": ragged([r.tokens for r in rows], np.int32),
            "logprobs": ragged([r.logprobs for r in rows], np.float32),
            "versions": ragged([r.versions for r in rows], np.int64),
            "keys": ragged([() if r.key is None else r.key for r in rows], np.uint32)}


def pending_from_arrays(arrays: dict[str, Arrays]) -> list[PendingGroup]:
    columns = {name: iter(unragged(arrays[name])) for name in ("tokens", "logprobs", "versions", "keys")}
    groups = []
    for header, prompt in zip(from_texts(arrays["header"]), unragged(arrays["prompt"])):
        h = json.loads(header)
        prompt = prompt.tolist()
        rows = []
        for settings in h["rows"]:
            tokens, logprobs, versions, key = (next(columns[name]) for name in ("tokens", "logprobs", "versions",
                                                                                 "keys"))
            rows.append(Row(prompt=prompt, tokens=tokens.tolist(), logprobs=logprobs.tolist(),
                            versions=versions.tolist(), key=key if len(key) else None, **settings))
        groups.append(PendingGroup(Problem.from_json(h["problem"]), prompt, rows, tuple(h["draw"])))
    return groups


def to_bytes(arrays: dict[str, Arrays]) -> bytes:
    """Nested arrays as one byte string (np.savez), to send to the other processes."""
    buffer = io.BytesIO()
    np.savez(buffer, **{f"{name}/{part}": x for name, column in arrays.items() for part, x in column.items()})
    return buffer.getvalue()


def from_bytes(payload: bytes) -> dict[str, Arrays]:
    out: dict[str, Arrays] = {}
    with np.load(io.BytesIO(payload)) as loaded:
        for key in loaded.files:
            name, part = key.split("/")
            out.setdefault(name, {})[part] = loaded[key]
    return out
