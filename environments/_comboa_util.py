"""Shared pieces of the combinatorics batch A: the two reward rules of counting tasks.

Most environments of this batch ask for one count. Either the exact count modulo a
given MOD is required (1 / 0, and an integer outside [0, MOD) is invalid: -0.5), or
the plain count is scored by closeness, (min/max)^beta. The base classes below carry
those rules; a subclass stores the answer under data["gold"] (and the modulus under
data["MOD"]).
"""

from __future__ import annotations

from rlve_jax.env import Environment, parse_int, ratio_reward

# Fixed prime moduli for environments whose row says "MOD from a (fixed) prime list".
PRIME_MODULI = (10007, 100003, 1000003, 998244353, 1000000007)


def mod_output_format(mod: int) -> str:
    return f"Output Format: a single integer, the answer modulo {mod} (an integer in [0, {mod}))."


def count_output_format() -> str:
    return "Output Format: a single non-negative integer, the exact count."


class ModCountingEnvironment(Environment):
    """An exact count modulo data["MOD"]: correct 1, wrong 0, out of [0, MOD) -0.5."""

    def score(self, data, answer):
        value = parse_int(answer)
        if not 0 <= value < data["MOD"]:
            return -0.5
        return float(value == data["gold"])

    def reference(self, problem):
        return str(problem.data["gold"])


class RatioCountingEnvironment(Environment):
    """A plain count scored (min(ans, gold)/max(ans, gold))^beta.

    A gold of 0 is matched only by 0. Negative answers are a format error (-1); where
    the row says "<=0 -> -1" (`positive_only`), so is 0.
    """

    beta = 10
    positive_only = False

    def score(self, data, answer):
        value = parse_int(answer)
        if value < 0 or (self.positive_only and value == 0):
            return -1.0
        return ratio_reward(value, data["gold"], self.beta)

    def reference(self, problem):
        return str(problem.data["gold"])

    def perturb(self, problem, answer):
        """Half again as much: gold + 1 is 'accurate' for large counts, since (g/(g+1))^beta
        is within the 1e-6 accuracy tolerance (as in the original)."""
        gold = problem.data["gold"]
        return str(gold + 1 + gold // 2)
