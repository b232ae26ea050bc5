"""BannedPointSupersetPathCounting (held-out): count bit-superset paths in 3D avoiding banned points."""

from collections.abc import Sequence
from functools import lru_cache
from math import comb, factorial

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


@lru_cache(maxsize=None)
def surjections(d: int, k: int) -> int:
    """Chains of k proper superset steps across d new bits: onto maps from the d bits to the k ordered steps."""
    return sum((-1) ** j * comb(k, j) * (k - j) ** d for j in range(k + 1))


@lru_cache(maxsize=None)
def free_paths(d1: int, d2: int, d3: int) -> int:
    """Paths without banned points between two points whose coordinates differ by d1, d2, d3 new bits: the three
    axes' chains, interleaved."""
    return sum(factorial(k1 + k2 + k3) // (factorial(k1) * factorial(k2) * factorial(k3))
               * surjections(d1, k1) * surjections(d2, k2) * surjections(d3, k3)
               for k1 in range(d1 + 1) for k2 in range(d2 + 1) for k3 in range(d3 + 1))


def _between(low: Sequence[int], high: Sequence[int]) -> int | None:
    """free_paths from low to high, or None when low is not below high on every axis."""
    if any(a & b != a for a, b in zip(low, high)):
        return None
    return free_paths(*((b & ~a).bit_count() for a, b in zip(low, high)))


def count_paths(target: tuple[int, int, int], banned: set[tuple[int, int, int]], mod: int | None = None) -> int:
    """Number of paths from (0,0,0) to target (modulo `mod` if given); each step raises one coordinate to a proper
    superset and no path visits a banned point.

    By the first banned point a path visits: first[b] counts the paths to b that visit no other banned point, and
    the answer is the free paths less those that visit one. Quadratic in the banned points (at most MAX_O); a walk
    over every point below the target grows with 2^(its bits) instead (6 CPU s at level 40, seed 2160).
    """
    origin = (0, 0, 0)
    order = sorted(banned, key=lambda p: sum(x.bit_count() for x in p))  # a point below b has fewer bits
    first: list[tuple[tuple[int, int, int], int]] = []
    for b in order:
        count = _between(origin, b)
        for a, paths_to_a in first:
            between = _between(a, b)
            if between is not None:
                count -= paths_to_a * between
        first.append((b, count % mod if mod else count))
    total = _between(origin, target)
    for b, paths_to_b in first:
        between = _between(b, target)
        if between is not None:
            total -= paths_to_b * between
    return total % mod if mod else total


class Grid(Sequence):
    """The points below target (submasks on each axis), in itertools.product's order, without storing them."""

    def __init__(self, target: Sequence[int]):
        self.axes = [submasks(t) for t in target]
        self.size = len(self.axes[0]) * len(self.axes[1]) * len(self.axes[2])

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> tuple[int, int, int]:
        if not 0 <= index < self.size:
            raise IndexError(index)
        xs, ys, zs = self.axes
        index, z = divmod(index, len(zs))
        x, y = divmod(index, len(ys))
        return xs[x], ys[y], zs[z]


class Inner(Sequence):
    """The grid without its first point (0,0,0) and its last (the target)."""

    def __init__(self, grid: Grid):
        self.grid = grid

    def __len__(self) -> int:
        return max(0, len(self.grid) - 2)

    def __getitem__(self, index: int) -> tuple[int, int, int]:
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.grid[index + 1]


class BannedPointSupersetPathCounting(Environment):
    name = "BannedPointSupersetPathCounting"

    def levels(self, difficulty):
        return [{"MAX_N_M_R": grow_1p1(1, difficulty), "MAX_O": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        high = params["MAX_N_M_R"]
        target = tuple(rng.randint(0, high) for _ in range(3))
        inner = Inner(Grid(target))  # every point but (0,0,0) and the target, as a lazy sequence: up to 2^24 points
        count = rng.randint(1, min(params["MAX_O"], len(inner))) if inner else 0
        banned = sorted(rng.sample(inner, count))
        mod = rng.randint(2, 10_000)
        answer = count_paths(target, set(banned), mod)
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
