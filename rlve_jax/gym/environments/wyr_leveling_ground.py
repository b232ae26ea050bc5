"""WYRLevelingGround (C16): the fewest range operations (+-A or +-B on a contiguous segment)
that bring every height to zero (POI "Leveling Ground")."""

import heapq

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def extended_gcd(a: int, b: int) -> tuple[int, int, int]:
    """(g, x, y) with a*x + b*y = g."""
    if b == 0:
        return a, 1, 0
    g, x, y = extended_gcd(b, a % b)
    return g, y, x - (a // b) * y


def min_operations(heights: list[int], a: int, b: int) -> int:
    """Differences d_i (with zero borders) must be written d_i = x_i*A + y_i*B with sum x = 0;
    an operation contributes one +unit and one -unit, so the answer is sum(|x|+|y|)/2.
    Each d_i takes its cheapest solution, then the x_i are shifted by steps of B/g, greedily by
    marginal cost (the cost of each term is convex in its shift), until sum x = 0."""
    g, x0, y0 = extended_gcd(a, b)
    diffs = [h - prev for prev, h in zip([0] + heights, heights + [0])]
    step_x, step_y = b // g, a // g

    def cost(x: int, y: int) -> int:
        return abs(x) + abs(y)

    xs, ys = [], []
    for d in diffs:
        if d % g:
            raise ValueError("heights must be integer combinations of A and B")
        x, y = x0 * d // g, y0 * d // g
        k = -x // step_x  # search around the shift that brings x near 0 and the one for y
        candidates = {k + delta for delta in (-1, 0, 1)} | {y // step_y + delta for delta in (-1, 0, 1)}
        k = min(sorted(candidates), key=lambda j: cost(x + j * step_x, y - j * step_y))
        xs.append(x + k * step_x)
        ys.append(y - k * step_y)
    excess = sum(xs) // step_x  # sum x is a multiple of B/g
    direction = -1 if excess > 0 else 1
    heap = [(cost(x + direction * step_x, y - direction * step_y) - cost(x, y), i)
            for i, (x, y) in enumerate(zip(xs, ys))]
    heapq.heapify(heap)
    for _ in range(abs(excess)):
        _, i = heapq.heappop(heap)
        xs[i] += direction * step_x
        ys[i] -= direction * step_y
        nxt = cost(xs[i] + direction * step_x, ys[i] - direction * step_y) - cost(xs[i], ys[i])
        heapq.heappush(heap, (nxt, i))
    return sum(cost(x, y) for x, y in zip(xs, ys)) // 2


class WYRLevelingGround(ExactIntegerEnvironment):
    name = "WYRLevelingGround"

    def levels(self, difficulty):
        return [{"N": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        a, b = rng.randint(1, 2 * n), rng.randint(1, 2 * n)
        heights = [rng.randint(-n, n) * a + rng.randint(-n, n) * b for _ in range(n)]
        if not any(heights):
            heights[rng.randrange(n)] = a
        return {"heights": heights, "A": a, "B": b, "reference": str(min_operations(heights, a, b))}

    def prompt(self, data):
        heights, a, b = data["heights"], data["A"], data["B"]
        return (
            f"You are given an array of {len(heights)} integers (heights): {' '.join(map(str, heights))}\n"
            f"In one operation you choose a contiguous segment of the array and either add {a} to every "
            f"element of it, subtract {a} from every element of it, add {b} to every element of it, or "
            f"subtract {b} from every element of it.\n"
            "What is the minimum number of operations needed to make every element equal to 0?\n\n"
            "Output Format: a single integer."
        )
