"""ShortestUnicolorSubstring: flip at most K bits of a binary string so that its longest run of equal
characters is as short as possible."""

from rlve_jax.gym.environments._common import INVALID, check_length, grow_1p1, minimization_reward
from rlve_jax.gym.env import Environment, FormatError


def longest_run(text: str) -> int:
    longest = run = 1
    for previous, current in zip(text, text[1:]):
        run = run + 1 if current == previous else 1
        longest = max(longest, run)
    return longest


def fewest_flips(text: str, limit: int) -> tuple[int, str]:
    """(fewest flips, a string reaching it) so that no run is longer than limit: a DP over
    (last character, length of the current run)."""
    n = len(text)
    infinity = n + 1
    # cost[(ch, run)] = fewest flips of the prefix so far ending with a run of `run` copies of ch
    cost = {(ch, 1): int(text[0] != ch) for ch in "01"}
    history = []
    for i in range(1, n):
        step, parents = {}, {}
        for (ch, run), flips in cost.items():
            for nxt in "01":
                state = (nxt, run + 1 if nxt == ch else 1)
                if state[1] <= limit and flips + (text[i] != nxt) < step.get(state, infinity):
                    step[state], parents[state] = flips + (text[i] != nxt), (ch, run)
        cost = step
        history.append(parents)
    state = min(cost, key=cost.get)
    best, chars = cost[state], [state[0]]
    for parents in reversed(history):
        state = parents[state]
        chars.append(state[0])
    return best, "".join(reversed(chars))


class ShortestUnicolorSubstring(Environment):
    name = "ShortestUnicolorSubstring"

    def levels(self, difficulty):
        return [{"N": grow_1p1(5, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        text = "".join(rng.choice("01") for _ in range(n))
        budget = rng.randint(1, n // 2)
        limit = next(L for L in range(1, n + 1) if fewest_flips(text, L)[0] <= budget)
        return {"S": text, "K": budget, "optimum": limit, "reference": fewest_flips(text, limit)[1]}

    def prompt(self, data):
        n, k = len(data["S"]), data["K"]
        return (
            f"You are given a binary string S of length {n}: {data['S']}\n\n"
            f"You may flip at most {k} of its characters (0 to 1 or 1 to 0). Minimize the length of the longest "
            "substring consisting of equal characters.\n\n"
            f"Output Format: the resulting binary string of length {n}, on one line without spaces."
        )

    def score(self, data, answer):
        text = check_length(answer)
        if len(text) != len(data["S"]) or text.strip("01"):
            raise FormatError("not a binary string of the right length")
        if sum(a != b for a, b in zip(text, data["S"])) > data["K"]:
            return INVALID
        return minimization_reward(data["optimum"], longest_run(text), beta=5)

    def perturb(self, problem, answer):
        return answer[:-1]  # one character short: a format error
