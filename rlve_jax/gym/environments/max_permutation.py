"""MaxPermutation: order the given numbers so that writing them one after another gives the largest
possible integer (made tricky by numbers that are prefixes of others)."""

from functools import cmp_to_key

from rlve_jax.gym.environments._common import grow_1p1, maximization_reward, parse_permutation
from rlve_jax.gym.env import Environment


def largest_order(numbers: list[str]) -> list[int]:
    """Exact: a before b iff a + b > b + a as strings (a total preorder), as in the classic proof."""
    def compare(i: int, j: int) -> int:
        ab, ba = numbers[i] + numbers[j], numbers[j] + numbers[i]
        return -1 if ab > ba else int(ab < ba)

    return sorted(range(len(numbers)), key=cmp_to_key(compare))


class MaxPermutation(Environment):
    name = "MaxPermutation"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        numbers: list[str] = []
        for _ in range(params["N"]):
            if numbers and rng.random() < 0.5:  # a prefix or an extension of an earlier number
                base = rng.choice(numbers)
                if len(base) > 1 and rng.random() < 0.5:
                    number = base[:rng.randint(1, len(base) - 1)]
                else:
                    number = base + "".join(rng.choice("12") for _ in range(rng.randint(0, 5 - len(base))))
            else:
                number = "".join(rng.choice("12") for _ in range(rng.randint(1, 5)))
            numbers.append(number)
        order = largest_order(numbers)
        return {"numbers": numbers, "optimum": "".join(numbers[i] for i in order),
                "reference": " ".join(map(str, order))}

    def prompt(self, data):
        numbers = data["numbers"]
        n = len(numbers)
        return (
            f"You are given {n} positive integers, indexed 0 to {n - 1}:\n"
            + "\n".join(f"{i}: {number}" for i, number in enumerate(numbers))
            + "\nArrange all of them in some order and write them one after another (concatenate their decimal "
            "representations) to form one big integer. Make this integer as large as possible.\n\n"
            f"Output Format: a single line with a permutation of 0..{n - 1} (the indices in your order), separated "
            "by spaces."
        )

    def score(self, data, answer):
        numbers = data["numbers"]
        order = parse_permutation(answer, len(numbers))
        if order is None:
            return -0.5
        return maximization_reward(int("".join(numbers[i] for i in order)), int(data["optimum"]), beta=5)
