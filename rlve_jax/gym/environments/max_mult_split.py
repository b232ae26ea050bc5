"""MaxMultSplit: insert K multiplication signs into a digit string so that the product of the K + 1
parts is as large as possible."""

from rlve_jax.gym.environments._common import grow_1p1, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment

SPLIT_RATIOS = (0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95)


def best_parts(digits: str, parts: int) -> list[int]:
    """Exact DP: best[c][j] = the largest product of the first j digits cut into c parts."""
    n = len(digits)
    best = [[-1] * (n + 1) for _ in range(parts + 1)]
    cut = [[0] * (n + 1) for _ in range(parts + 1)]
    best[0][0] = 1
    for c in range(1, parts + 1):
        for j in range(c, n + 1):
            for i in range(c - 1, j):
                if best[c - 1][i] >= 0 and best[c - 1][i] * int(digits[i:j]) > best[c][j]:
                    best[c][j], cut[c][j] = best[c - 1][i] * int(digits[i:j]), i
    pieces, j = [], n
    for c in range(parts, 0, -1):
        i = cut[c][j]
        pieces.append(int(digits[i:j]))
        j = i
    return pieces[::-1]


def product(values: list[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


class MaxMultSplit(Environment):
    name = "MaxMultSplit"
    size_keys = ("N",)

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        ks = {2, n - 1} | {int(r * n) for r in SPLIT_RATIOS}
        return [{"N": n, "K": k} for k in sorted(ks) if 2 <= k <= n - 1]

    def sample(self, params, rng):
        digits = "".join(str(rng.randint(1, 9)) for _ in range(params["N"]))
        pieces = best_parts(digits, params["K"] + 1)
        return {"digits": digits, "K": params["K"], "optimum": product(pieces),
                "reference": " ".join(map(str, pieces))}

    def prompt(self, data):
        digits, k = data["digits"], data["K"]
        return (
            f"You are given the digit string {digits}. Insert exactly {k} multiplication signs between its digits, "
            f"splitting it into {k + 1} contiguous non-empty parts, so that the product of the parts (read as "
            "integers) is as large as possible.\n\n"
            f"Output Format: a single line with the {k + 1} parts in their original order, separated by spaces "
            "(their concatenation must be the original string)."
        )

    def score(self, data, answer):
        pieces = parse_ints(answer)
        if len(pieces) != data["K"] + 1 or "".join(map(str, pieces)) != data["digits"]:
            return -0.5
        return maximization_reward(product(pieces), data["optimum"], beta=3)
