"""GasFireExtinguishers (POI "Gas"): assign every room of a tree to an extinguisher site within
distance K; a site serving L rooms needs ceil(L / S) extinguishers; minimize their total number."""

from environments._optima_util import DropLastTokenPerturbation, minimize_reward, random_parent_tree, tree_distances
from rlve_jax.env import parse_ints


def fewest_extinguishers(distances: list[list[int]], k: int, s: int) -> list[int]:
    """Exact subset DP: an optimum is a partition of the rooms into groups of at most S rooms that each lie
    within distance K of a common site; f[mask] = 1 + min f[mask - group] over groups holding mask's lowest room."""
    n = len(distances)
    balls = [sum(1 << u for u in range(n) if distances[v][u] <= k) for v in range(n)]
    site_of_group = [-1] * (1 << n)
    for group in range(1, 1 << n):
        if bin(group).count("1") <= s:
            site_of_group[group] = next((v for v in range(n) if group & balls[v] == group), -1)
    full = (1 << n) - 1
    fewest, last_group = [0] + [n + 1] * full, [0] * (1 << n)
    for mask in range(1, full + 1):
        low = mask & -mask
        rest = mask ^ low
        sub = rest
        while True:
            group = sub | low
            if site_of_group[group] >= 0 and fewest[mask ^ group] + 1 < fewest[mask]:
                fewest[mask], last_group[mask] = fewest[mask ^ group] + 1, group
            if not sub:
                break
            sub = (sub - 1) & rest
    assignment, mask = [0] * n, full
    while mask:
        group = last_group[mask]
        for u in range(n):
            if group >> u & 1:
                assignment[u] = site_of_group[group]
        mask ^= group
    return assignment


def extinguishers(assignment: list[int], s: int) -> int:
    loads: dict[int, int] = {}
    for site in assignment:
        loads[site] = loads.get(site, 0) + 1
    return sum(-(-load // s) for load in loads.values())


class GasFireExtinguishers(DropLastTokenPerturbation):
    name = "GasFireExtinguishers"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        edges = random_parent_tree(n, rng)
        distances = tree_distances(n, edges)
        diameter = max(map(max, distances))
        k = rng.randint(1, max(1, diameter // 2))
        s = rng.randint(2, max(2, n // k))
        assignment = fewest_extinguishers(distances, k, s)
        return {"N": n, "edges": edges, "K": k, "S": s, "optimum": extinguishers(assignment, s),
                "reference": " ".join(map(str, assignment))}

    def prompt(self, data):
        n, k, s = data["N"], data["K"], data["S"]
        return (
            f"A building has {n} rooms numbered 0 to {n - 1}, connected by corridors that form a tree:\n"
            + "\n".join(f"{u} - {v}" for u, v in data["edges"])
            + f"\nThe distance between two rooms is the number of corridors on the path between them. Every room "
            f"u must be assigned to a room P[u] (possibly u itself) at distance at most {k} from u, where "
            f"extinguishers are kept. One extinguisher can serve at most {s} rooms, so a room that serves L "
            f"rooms needs ceil(L / {s}) extinguishers. Minimize the total number of extinguishers.\n\n"
            f"Output Format: a single line with P[0] P[1] ... P[{n - 1}] separated by spaces."
        )

    def score(self, data, answer):
        assignment, n = parse_ints(answer), data["N"]
        if len(assignment) != n or any(not 0 <= p < n for p in assignment):
            return -0.5
        distances = tree_distances(n, data["edges"])
        if any(distances[u][p] > data["K"] for u, p in enumerate(assignment)):
            return -0.5
        return minimize_reward(data["optimum"], extinguishers(assignment, data["S"]), beta=3)
