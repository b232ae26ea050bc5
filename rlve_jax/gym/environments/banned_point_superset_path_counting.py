"""BannedPointSupersetPathCounting (held-out): count bit-superset paths in 3D avoiding banned points."""

from itertools import product

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import grow_1p1, score_mod


def submasks(x: int) -> list[int]:
    """All bit-submasks of x in ascending order."""
    masks, sub = [], x
    while True:
        masks.append(sub)
        if sub == 0:
            return sorted(masks)
        sub = (sub - 1) & x


def count_paths(target: tuple[int, int, int], banned: set[tuple[int, int, int]]) -> int:
    """Exact number of paths from (0,0,0) to target; each step raises one coordinate to a proper superset."""
    ways: dict[tuple[int, int, int], int] = {}
    axes = [submasks(t) for t in target]
    for point in product(*axes):  # ascending in every coordinate: predecessors come first
        if point in banned:
            ways[point] = 0
            continue
        total = 1 if point == (0, 0, 0) else 0
        for axis in range(3):
            coordinate = point[axis]
            for smaller in submasks(coordinate)[:-1]:  # proper submasks
                previous = point[:axis] + (smaller,) + point[axis + 1:]
                total += ways[previous]
        ways[point] = total
    return ways[target]


class BannedPointSupersetPathCounting(Environment):
    name = "BannedPointSupersetPathCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M_R": grow_1p1(1, difficulty), "MAX_O": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        high = params["MAX_N_M_R"]
        target = tuple(rng.randint(0, high) for _ in range(3))
        inner = [p for p in product(*(submasks(t) for t in target)) if p not in ((0, 0, 0), target)]
        count = rng.randint(1, min(params["MAX_O"], len(inner))) if inner else 0
        banned = sorted(rng.sample(inner, count))
        mod = rng.randint(2, 10_000)
        answer = count_paths(target, set(banned)) % mod
        return {"target": list(target), "banned": [list(p) for p in banned], "mod": mod, "reference": str(answer)}

    def prompt(self, data):
        n, m, r = data["target"]
        banned = "\n".join(f"({x}, {y}, {z})" for x, y, z in data["banned"]) or "(none)"
        return (
            f"A path starts at the point (0, 0, 0) and must end at ({n}, {m}, {r}). In one step you pick one "
            "coordinate and replace its value v by a different value w such that w is a bitwise superset of v "
            "(that is, v AND w = v and w != v); the other two coordinates stay unchanged.\n"
            "The path must never visit any of the following banned points:\n"
            f"{banned}\n\n"
            f"How many different paths are there? Give the count modulo {data['mod']}.\n\n"
            f"Output Format: a single integer in [0, {data['mod'] - 1}]."
        )

    def score(self, data, answer):
        return score_mod(answer, int(data["reference"]), data["mod"])
