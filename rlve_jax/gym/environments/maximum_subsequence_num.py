"""Maximum_SubsequenceNum: append N values in [0, K) to a sequence to maximise its distinct subsequences."""

from rlve_jax.gym.env import Environment, Problem
from rlve_jax.gym.environments._common import grow_1p1, parse_ints

RATIOS = (0.1, 0.2, 0.3, 0.5, 1.0)


def distinct_subsequences(sequence: list[int]) -> int:
    """Distinct subsequences, the empty one included (each new element doubles, minus repeats)."""
    count, before_last = 1, {}
    for value in sequence:
        count, before_last[value] = 2 * count - before_last.get(value, 0), count
    return count


def greedy_extension(sequence: list[int], n: int, k: int) -> list[int]:
    """Append the least recently used value each time (optimal: the subtracted repeat term is smallest)."""
    last_seen = {value: -1 for value in range(k)}
    for position, value in enumerate(sequence):
        last_seen[value] = position
    appended = []
    for position in range(len(sequence), len(sequence) + n):
        value = min(range(k), key=lambda v: (last_seen[v], v))
        last_seen[value] = position
        appended.append(value)
    return appended


class Maximum_SubsequenceNum(Environment):
    name = "Maximum_SubsequenceNum"

    def levels(self, difficulty):
        n = grow_1p1(2, difficulty)
        ks = sorted({2} | {int(r * n) for r in RATIOS if int(r * n) >= 2})
        return [{"N": n, "M": n, "K": k} for k in ks]

    def sample(self, params, rng):
        n, m, k = params["N"], params["M"], params["K"]
        sequence = [rng.randrange(k) for _ in range(m)]
        best = sequence + greedy_extension(sequence, n, k)
        return {"N": n, "K": k, "sequence": sequence, "gold": distinct_subsequences(best)}

    def prompt(self, data):
        n, k, sequence = data["N"], data["K"], data["sequence"]
        return (
            f"You are given a sequence of {len(sequence)} integers: {' '.join(map(str, sequence))}\n"
            f"Append exactly {n} more integers, each in the range [0, {k - 1}], to the end of the sequence so that "
            f"the resulting sequence has as many distinct subsequences as possible. (A subsequence keeps some of the "
            f"elements in their original order; two subsequences are the same if they are equal as sequences of "
            f"values; the empty subsequence counts.)\n\n"
            f"Output Format: a single line with the {n} appended integers separated by spaces."
        )

    def score(self, data, answer):
        appended = parse_ints(answer)
        if len(appended) != data["N"] or not all(0 <= v < data["K"] for v in appended):
            return -0.5
        return (distinct_subsequences(data["sequence"] + appended) / data["gold"]) ** 5

    def reference(self, problem: Problem) -> str:
        data = problem.data
        return " ".join(map(str, greedy_extension(data["sequence"], data["N"], data["K"])))

    def perturb(self, problem: Problem, answer: str) -> str:
        """Repeat the previous element instead of the last appended value: always strictly fewer subsequences."""
        appended = parse_ints(answer)
        previous = (problem.data["sequence"] + appended)[-2]
        return " ".join(map(str, appended[:-1] + [previous]))
