"""StuntFlying: a sequence of N stunts over K kinds; each stunt scores C[kind] x (distance to the previous
stunt of the same kind, 0 for the first). Maximize the total score."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, grow_1p1, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment


def show_score(sequence: list[int], weights: list[int]) -> int:
    last_seen: dict[int, int] = {}
    total = 0
    for i, kind in enumerate(sequence):
        if kind in last_seen:
            total += weights[kind] * (i - last_seen[kind])
        last_seen[kind] = i
    return total


def best_show(n: int, weights: list[int]) -> list[int]:
    """The scores of a kind telescope to C x (last - first position). Disjoint first/last pairs have spans
    whose top-j sums are at most (n-1) + (n-3) + ..., which nested pairs reach; so the heaviest kind takes
    the two ends, the next heaviest the next two, and so on (the middle repeats the heaviest kind)."""
    by_weight = sorted(range(len(weights)), key=lambda kind: (-weights[kind], kind))
    sequence = [by_weight[0]] * n
    for depth, kind in enumerate(by_weight[:n // 2]):
        sequence[depth] = sequence[n - 1 - depth] = kind
    return sequence


class StuntFlying(Environment):
    name = "StuntFlying"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        kinds = rng.randint(2, n)
        weights = [rng.randint(1, kinds) for _ in range(kinds)]
        sequence = best_show(n, weights)
        return {"N": n, "C": weights, "optimum": show_score(sequence, weights),
                "reference": " ".join(map(str, sequence))}

    def prompt(self, data):
        n, weights = data["N"], data["C"]
        return (
            f"A pilot performs {n} stunts in a row, each of one of {len(weights)} kinds numbered 0 to "
            f"{len(weights) - 1}. Kind k has a coefficient C[k]: "
            + " ".join(f"C[{k}]={c}" for k, c in enumerate(weights)) + ".\n"
            "A stunt of kind k at position i scores C[k] x (i - j), where j is the position of the previous stunt "
            "of the same kind; a kind's first stunt scores 0. Choose the kinds of all stunts to maximize the total "
            "score.\n\n"
            f"Output Format: a single line with {n} integers in [0, {len(weights) - 1}] (the kinds of stunts 1 "
            f"to {n}) separated by spaces."
        )

    def score(self, data, answer):
        sequence = parse_ints(answer)
        kinds = len(data["C"])
        if len(sequence) != data["N"] or any(not 0 <= kind < kinds for kind in sequence):
            return INVALID
        return maximization_reward(show_score(sequence, data["C"]), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
