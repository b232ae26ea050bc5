"""FibonacciContainingCounting: positive pairs (a, b) whose sequence f0 = a, f1 = b, f(n) = f(n-1) + f(n-2) hits K at n >= 2."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p5, score_count


def count_pairs(k: int) -> int:
    """f(n) = F(n-1)*a + F(n)*b for n >= 2 and the sequence increases from index 1, so each
    pair hits K at most once: count solutions of F(n-1)*a + F(n)*b = K for every n."""
    total, previous, current = 0, 1, 1  # F(n-1), F(n) for n = 2
    while previous + current <= k:
        total += sum((k - current * b) % previous == 0 for b in range(1, (k - previous) // current + 1))
        previous, current = current, previous + current
    return total


class FibonacciContainingCounting(Environment):
    name = "FibonacciContainingCounting"

    def levels(self, difficulty):
        return [{"MAX_K": grow_1p5(10, difficulty)}]

    def sample(self, params, rng):
        k = rng.randint(2, params["MAX_K"])
        return {"K": k, "reference": str(count_pairs(k))}

    def prompt(self, data):
        return (
            "For positive integers a and b, define the sequence f(0) = a, f(1) = b, and f(n) = f(n-1) + f(n-2) "
            f"for n >= 2. How many pairs of positive integers (a, b) are there such that f(n) = {data['K']} "
            "for some n >= 2?\n\n"
            "Output Format: a single integer."
        )

    def score(self, data, answer):
        return score_count(answer, int(data["reference"]))
