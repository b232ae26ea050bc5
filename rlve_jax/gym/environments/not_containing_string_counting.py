"""NotContainingStringCounting: binary strings of length N that avoid a given pattern, modulo MOD."""

from rlve_jax.gym.environments._common import ModCountingEnvironment, grow_1p1


def avoiding_strings(n: int, pattern: str, mod: int) -> int:
    """DP over the KMP automaton state (length of the longest pattern prefix that is a suffix)."""
    m = len(pattern)
    failure = [0] * m
    for i in range(1, m):
        k = failure[i - 1]
        while k and pattern[i] != pattern[k]:
            k = failure[k - 1]
        failure[i] = k + (pattern[i] == pattern[k])

    def step(state: int, char: str) -> int:
        while state and pattern[state] != char:
            state = failure[state - 1]
        return state + (pattern[state] == char)

    transitions = [[step(state, char) for char in "01"] for state in range(m)]
    ways = [1] + [0] * m
    for _ in range(n):
        nxt = [0] * (m + 1)
        for state in range(m):
            for target in transitions[state]:
                nxt[target] = (nxt[target] + ways[state]) % mod
        ways = nxt
    return sum(ways[:m]) % mod


class NotContainingStringCounting(ModCountingEnvironment):
    name = "NotContainingStringCounting"

    def levels(self, difficulty):
        return [{"MAX_N": 8 * 2 ** difficulty, "MAX_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = rng.randint(3, params["MAX_N"])
        m = rng.randint(2, min(n - 1, params["MAX_M"]))
        pattern = "".join(rng.choice("01") for _ in range(m))
        mod = rng.randint(2, 10 ** 4)
        return {"N": n, "pattern": pattern, "mod": mod, "gold": avoiding_strings(n, pattern, mod)}

    def prompt(self, data):
        return (
            f"How many binary strings (strings over the characters 0 and 1) of length {data['N']} do not contain "
            f"the string {data['pattern']} as a contiguous substring?\n\n"
            f"Output Format: a single integer, the number of such strings modulo {data['mod']}."
        )
