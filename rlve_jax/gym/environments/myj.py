"""MYJ: price N car washes; each customer uses the cheapest wash in its range if that price is within its
budget. Maximize the revenue (POI 2015 "Myjnie")."""

from bisect import bisect_left

from rlve_jax.gym.environments._common import drop_last_tokens, maximization_reward, parse_ints
from rlve_jax.gym.env import Environment


def revenue(prices: list[int], customers: list[list[int]]) -> int:
    total = 0
    for low, high, budget in customers:
        cheapest = min(prices[low - 1:high])
        if cheapest <= budget:
            total += cheapest
    return total


def best_prices(n: int, customers: list[list[int]]) -> tuple[int, list[int]]:
    """Interval DP; prices can be taken among the budgets. f[l, r][t] is the best revenue from customers
    inside [l, r] when every price there is at least values[t]: either all are above values[t], or some
    position p holds exactly values[t] and serves the customers of [l, r] that cover p and afford it."""
    values = sorted({budget for _, _, budget in customers})
    m, impossible = len(values), float("-inf")
    best: dict[tuple[int, int], list[float]] = {(l, l - 1): [0] * (m + 1) for l in range(n + 1)}
    choice: dict[tuple[int, int, int], int] = {}
    for width in range(1, n + 1):
        for l in range(n - width + 1):
            r = l + width - 1
            inside = [(a - 1, b - 1, c) for a, b, c in customers if l <= a - 1 and b - 1 <= r]
            budgets = {p: sorted(c for a, b, c in inside if a <= p <= b) for p in range(l, r + 1)}
            row = [impossible] * (m + 1)
            for t in range(m - 1, -1, -1):
                row[t] = row[t + 1]
                for p in range(l, r + 1):
                    buyers = len(budgets[p]) - bisect_left(budgets[p], values[t])
                    value = best[l, p - 1][t] + best[p + 1, r][t] + values[t] * buyers
                    if value > row[t]:
                        row[t], choice[l, r, t] = value, p
            best[l, r] = row
    prices = [0] * n
    stack = [(0, n - 1, 0)]
    while stack:
        l, r, t = stack.pop()
        if l > r:
            continue
        while best[l, r][t] == best[l, r][t + 1]:
            t += 1
        p = choice[l, r, t]
        prices[p] = values[t]
        stack += [(l, p - 1, t), (p + 1, r, t)]
    return int(best[0, n - 1][0]), prices


class MYJ(Environment):
    name = "MYJ"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        top = n * (n + 1) // 2
        customers = []
        for _ in range(rng.randint(1, top)):
            low = rng.randint(1, n)
            customers.append([low, rng.randint(low, n), rng.randint(1, top)])
        best, prices = best_prices(n, customers)
        return {"N": n, "customers": customers, "optimum": best, "reference": " ".join(map(str, prices))}

    def prompt(self, data):
        n = data["N"]
        customers = "\n".join(f"Customer {i + 1}: shops {a} to {b}, budget {c}"
                              for i, (a, b, c) in enumerate(data["customers"]))
        return (
            f"There are {n} shops in a row, numbered 1 to {n}, and you set a price for each shop. There are "
            f"{len(data['customers'])} customers; each considers a range of consecutive shops and has a budget:\n"
            f"{customers}\n\n"
            "Each customer looks at the cheapest shop in their range: if its price is at most their budget, they "
            "buy there once and pay that price; otherwise they buy nothing. Maximize the total amount paid.\n\n"
            f"Output Format: a single line with the {n} prices of shops 1 to {n}, separated by spaces."
        )

    def score(self, data, answer):
        prices = parse_ints(answer)
        if len(prices) != data["N"]:
            return -0.5
        return maximization_reward(revenue(prices, data["customers"]), data["optimum"], beta=5)

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
