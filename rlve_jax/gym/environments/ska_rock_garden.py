"""SkaRockGarden: optionally mirror each rock (x, y) -> (y, x), at a price, so that the bounding
rectangle has the smallest perimeter and, among those, the total price is smallest (POI "Ska")."""

from rlve_jax.gym.environments._common import check_length, grow_1p1, minimization_reward
from rlve_jax.gym.env import Environment, FormatError


def placed(rocks: list[list[int]], flips: str) -> list[tuple[int, int]]:
    return [(y, x) if flip == "1" else (x, y) for (x, y, _), flip in zip(rocks, flips)]


def perimeter(points: list[tuple[int, int]]) -> int:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return 2 * (max(xs) - min(xs) + max(ys) - min(ys))


def flip_cost(rocks: list[list[int]], flips: str) -> int:
    return sum(price for (_, _, price), flip in zip(rocks, flips) if flip == "1")


def best_flips(rocks: list[list[int]]) -> tuple[int, int, str]:
    """(perimeter, price, flips). With a_i <= b_i the sorted coordinates of rock i, the least half
    perimeter is max b - min a + max a - min b (a lower bound for both placements of the extreme
    values, met by putting every a on the x axis). Every optimal placement fits in a box of that half
    perimeter with coordinate-valued sides, so trying all such boxes, each rock taking its cheapest
    fitting orientation, finds the cheapest optimal placement."""
    low = [min(x, y) for x, y, _ in rocks]
    high = [max(x, y) for x, y, _ in rocks]
    half = max(high) - min(low) + max(low) - min(high)
    values = sorted({v for x, y, _ in rocks for v in (x, y)})
    best_price, best = None, ""
    for x1 in values:
        for x2 in (v for v in values if v >= x1):
            for y1 in values:
                y2 = y1 + half - (x2 - x1)
                if y2 < y1:
                    continue
                flips, price = [], 0
                for x, y, cost in rocks:
                    if x1 <= x <= x2 and y1 <= y <= y2:
                        flips.append("0")
                    elif x1 <= y <= x2 and y1 <= x <= y2:
                        flips.append("1")
                        price += cost
                    else:
                        break
                else:
                    if best_price is None or price < best_price:
                        best_price, best = price, "".join(flips)
    return 2 * half, best_price, best


class SkaRockGarden(Environment):
    name = "SkaRockGarden"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        rocks = [[rng.randint(0, 2 * n), rng.randint(0, 2 * n), rng.randint(1, n)] for _ in range(n)]
        best_perimeter, best_price, flips = best_flips(rocks)
        return {"rocks": rocks, "perimeter": best_perimeter, "price": best_price, "reference": flips}

    def prompt(self, data):
        n = len(data["rocks"])
        rocks = "\n".join(f"Rock {i + 1}: ({x}, {y}), cost {c}" for i, (x, y, c) in enumerate(data["rocks"]))
        return (
            f"There are {n} rocks in a garden at the following points, each with a moving cost:\n{rocks}\n\n"
            "You may move any rock from (x, y) to its mirror position (y, x), paying its cost. First, minimize the "
            "perimeter of the smallest axis-parallel rectangle containing all rocks; second, among all choices that "
            "achieve this minimum perimeter, minimize the total cost paid.\n\n"
            f"Output Format: a string of {n} characters without spaces, where the i-th character is 1 if rock i is "
            "moved and 0 otherwise."
        )

    def score(self, data, answer):
        flips = check_length(answer)
        rocks = data["rocks"]
        if len(flips) != len(rocks) or flips.strip("01"):
            raise FormatError("not a 0/1 string of the right length")
        mine = perimeter(placed(rocks, flips))
        reward = 0.5 * minimization_reward(data["perimeter"], mine, beta=5)
        if mine == data["perimeter"]:
            reward += 0.5 * minimization_reward(data["price"], flip_cost(rocks, flips), beta=5)
        return reward

    def perturb(self, problem, answer):
        return answer[:-1]  # one character short: a format error
