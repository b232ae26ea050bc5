"""A verl-style reward function over HTTP: the gym service scores verl's rollouts and its scheduler counts them.

Rows come from the service (`rlve_jax.gym.serve_client.problem_row`, ground truth = the problem id), e.g.

    python examples/verl_reward_service.py --url http://127.0.0.1:8000 --rows 256 --out data/rlve_service.jsonl

writes 256 drawn problems as verl/TRL rows; then point verl at the reward function:

    custom_reward_function.path=rlve_jax/gym/serve_client.py custom_reward_function.name=compute_score
    (reward_model.reward_manager=batch: name=compute_score_batch), with RLVE_SERVE_URL set for the workers.

A static file freezes the levels at the time it was drawn; redraw it between epochs (or use a streaming
dataset, as examples/trl_grpo_service.py does) to follow the curriculum.
"""

from __future__ import annotations

import argparse
import json

from rlve_jax.gym.serve_client import GymClient, problem_row


def write_rows(url: str, rows: int, out: str, token: str | None = None) -> list[dict]:
    """Draw `rows` problems from the service and write them as JSON lines; returns the rows."""
    client = GymClient(url, token)
    drawn = [problem_row(p) for p in client.draw(rows)["problems"]]
    with open(out, "w") as f:
        for row in drawn:
            f.write(json.dumps(row) + "\n")
    return drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--rows", type=int, default=256)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    print(f"wrote {len(write_rows(args.url, args.rows, args.out))} rows to {args.out}")


if __name__ == "__main__":
    main()
