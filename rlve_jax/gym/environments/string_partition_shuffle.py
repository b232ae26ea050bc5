"""StringPartitionShuffle: cut S into K intervals whose concatenation in some order spells T."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import INVALID, parse_ints, parse_lines, positional_match_reward


class StringPartitionShuffle(Environment):
    name = "StringPartitionShuffle"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        text = "".join(rng.choice("abc") for _ in range(n))
        k = rng.randint(2, n - 1)
        cuts = [0] + sorted(rng.sample(range(1, n), k - 1)) + [n]
        pieces = [[cuts[i], cuts[i + 1] - 1] for i in range(k)]
        rng.shuffle(pieces)
        target = "".join(text[left:right + 1] for left, right in pieces)
        return {"S": text, "T": target, "K": k,
                "reference": "\n".join(f"{left} {right}" for left, right in pieces)}

    def prompt(self, data):
        n, k = len(data["S"]), data["K"]
        return (
            f"You are given two strings of length {n}: S = {data['S']} and T = {data['T']} (positions start at 0).\n"
            f"Split S into exactly {k} non-empty contiguous pieces S[L..R] (inclusive) that together cover every "
            "position of S exactly once, and list them in an order such that concatenating the pieces in that order "
            "gives T.\n\n"
            f"Output Format: {k} lines, one piece per line in your order, each with two integers L R separated by a "
            "space."
        )

    def score(self, data, answer):
        pieces = [parse_ints(line) for line in parse_lines(answer)]
        if len(pieces) != data["K"] or any(len(piece) != 2 for piece in pieces):
            raise FormatError(f"expected {data['K']} lines of two integers")
        text = data["S"]
        if any(not 0 <= left <= right < len(text) for left, right in pieces):
            return INVALID
        if sorted(p for left, right in pieces for p in range(left, right + 1)) != list(range(len(text))):
            return INVALID
        spelled = "".join(text[left:right + 1] for left, right in pieces)
        return positional_match_reward(spelled, data["T"], beta=10)
