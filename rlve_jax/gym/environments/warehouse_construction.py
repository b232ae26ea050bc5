"""WarehouseConstruction: factories stand down a mountain; choose where to build warehouses (each has a
building cost) so that every product can be carried downhill to a warehouse, minimizing building plus
transport cost (ZJOI 2007)."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward, parse_ints, repeat_first_token
from rlve_jax.gym.env import Environment


def total_cost(distance: list[int], products: list[int], build: list[int], sites: set[int]) -> int | None:
    """Building plus carrying each product to the nearest warehouse at or below it (0-based sites), or
    None when some products have no warehouse below them."""
    total, nearest = sum(build[i] for i in sites), None
    for i in range(len(distance) - 1, -1, -1):
        if i in sites:
            nearest = i
        if products[i]:
            if nearest is None:
                return None
            total += products[i] * (distance[nearest] - distance[i])
    return total


def best_sites(distance: list[int], products: list[int], build: list[int]) -> list[int]:
    """best[i]: cheapest plan for factories < i with a warehouse at factory i - 1 (best[0] = 0 for none);
    the plan ends at the last warehouse after which no factory has products."""
    n = len(distance)
    best, previous = [0] + [0] * n, [0] * (n + 1)
    for i in range(1, n + 1):
        options = [(best[j] + sum(products[k] * (distance[i - 1] - distance[k]) for k in range(j, i)), j)
                   for j in range(i)]
        carried, previous[i] = min(options)
        best[i] = carried + build[i - 1]
    last_loaded = max((i + 1 for i in range(n) if products[i]), default=0)
    end = min(range(last_loaded, n + 1), key=lambda i: best[i]) if last_loaded else 0
    sites = []
    while end:
        sites.append(end - 1)
        end = previous[end]
    return sorted(sites)


class WarehouseConstruction(Environment):
    name = "WarehouseConstruction"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        distance, position = [], 0
        for _ in range(n):
            position += rng.randint(1, n)
            distance.append(position)
        products = [rng.randint(0, n) for _ in range(n)]
        build = [rng.randint(1, 2 * n) for _ in range(n)]
        sites = best_sites(distance, products, build)
        return {"X": distance, "P": products, "C": build, "optimum": total_cost(distance, products, build, set(sites)),
                "reference": " ".join(str(i + 1) for i in sites)}

    def prompt(self, data):
        n = len(data["X"])
        factories = "\n".join(f"Factory {i + 1}: distance {x}, products {p}, building cost {c}"
                              for i, (x, p, c) in enumerate(zip(data["X"], data["P"], data["C"])))
        return (
            f"There are {n} factories on a mountain slope, numbered 1 to {n}; each has a distance from the top "
            f"(increasing with the number), a number of products, and the cost of building a warehouse there:\n"
            f"{factories}\n\n"
            "Choose the factories where warehouses are built. Products can only be carried downhill: the products "
            "of factory i go to the nearest warehouse at factory i or at a larger number j, and carrying one "
            "product costs distance[j] - distance[i]. Every product must reach a warehouse. Minimize the total "
            "building cost plus carrying cost.\n\n"
            "Output Format: a single line with the numbers of the factories that get a warehouse, separated by "
            "spaces."
        )

    def score(self, data, answer):
        sites = [i - 1 for i in parse_ints(answer)]
        n = len(data["X"])
        if any(not 0 <= i < n for i in sites) or len(set(sites)) != len(sites):
            return INVALID
        cost = total_cost(data["X"], data["P"], data["C"], set(sites))
        if cost is None:
            return INVALID
        return minimization_reward(data["optimum"], cost, beta=5)

    def perturb(self, problem, answer):
        return repeat_first_token(answer, fallback="0")
