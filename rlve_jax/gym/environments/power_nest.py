"""PowerNest: write a number as a sum of powers of two with exponents written the same way, e.g. 7 = 2(2)+2+2(0)."""

from rlve_jax.gym.env import MAX_ANSWER_CHARS, Environment, FormatError
from rlve_jax.gym.environments._common import INVALID

# After each token, the tokens that may follow (")" and the end also need the right depth).
_FOLLOWERS = {"start": "2", "2": "(+)$", "(": "20", "0": ")", ")": "+)$", "+": "2"}


def power_nest(n: int) -> str:
    """Powers in decreasing order; 2^1 is '2', 2^0 is '2(0)', other exponents nest."""
    terms = []
    for exponent in range(n.bit_length() - 1, -1, -1):
        if n >> exponent & 1:
            terms.append("2" if exponent == 1 else "2(0)" if exponent == 0 else f"2({power_nest(exponent)})")
    return "+".join(terms)


def is_well_formed(text: str) -> bool:
    """Grammar E := T ('+' T)*, T := '2' | '2(0)' | '2(' E ')', checked in one linear pass."""
    previous, depth = "start", 0
    for token in text + "$":
        if token not in _FOLLOWERS[previous]:
            return False
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth < 0:
                return False
        elif token == "$":
            return depth == 0
        previous = token
    return False


class PowerNest(Environment):
    name = "PowerNest"

    def levels(self, difficulty):
        return [{"max_number": 4 * 2**difficulty}]

    def sample(self, params, rng):
        number = rng.randint(1, params["max_number"])
        return {"number": number, "reference": power_nest(number)}

    def prompt(self, data):
        return (
            "Every positive integer can be written as a sum of powers of two. Write 2^1 as `2`, 2^0 as `2(0)`, and "
            "any other power 2^e as `2(e)`, where the exponent e is itself written in the same notation; list the "
            "powers in decreasing order joined by `+`. For example, 7 = 2^2 + 2^1 + 2^0 is written `2(2)+2+2(0)`, "
            "and 137 = 2^7 + 2^3 + 2^0 is written `2(2(2)+2+2(0))+2(2+2(0))+2(0)`.\n"
            f"Write {data['number']} in this notation.\n\n"
            "Output Format: a single expression in this notation, without spaces."
        )

    def score(self, data, answer):
        text = "".join(answer.split())
        if not text:
            return INVALID  # as the original: an empty answer is invalid (-0.5), not a format error
        if len(text) > MAX_ANSWER_CHARS:
            raise FormatError("overlong answer")
        if text == data["reference"]:
            return 1.0
        return 0.0 if is_well_formed(text) else INVALID

    def perturb(self, problem, answer):
        return f"{answer}+2(0)" if problem.data["number"] % 2 == 0 else f"2+{answer}"  # well formed, not canonical
