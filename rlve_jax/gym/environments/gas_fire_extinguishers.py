"""GasFireExtinguishers (POI "Gas"): assign every room of a tree to an extinguisher site within
distance K; a site serving L rooms needs ceil(L / S) extinguishers; minimize their total number."""

from rlve_jax.gym.environments._common import (
    DropLastTokenPerturbation, adjacency, bfs_order, minimization_reward, parse_ints, random_tree,
)
from rlve_jax.gym.environments._graphs import all_pairs_distances


def fewest_extinguishers(n: int, edges: list[list[int]], k: int, s: int) -> list[int]:
    """The POI greedy, bottom-up from root 0, tracking who serves whom. Every vertex passes up its rooms
    still unserved and its sites' free slots, bucketed by distance. A room K below v can only be served
    from v: place ceil(count / S) extinguishers there. Pairs whose distance through v is K or K - 1 would
    be out of reach one level up, so match them now; at the root match everything within reach and put the
    rest on the root. (Checked against an exhaustive subset DP in the tests.)"""
    neighbours = adjacency(n, edges)
    parent, order = bfs_order(neighbours, 0)
    site_of = [-1] * n
    unserved: list[list[list[int]]] = [[] for _ in range(n)]  # [v][d]: rooms at distance d below v
    free: list[list[list[list[int]]]] = [[] for _ in range(n)]  # [v][d]: [site, free slots] at distance d

    def match(sites: list[list[int]], rooms: list[int]) -> None:
        while sites and rooms:
            site_of[rooms.pop()] = sites[-1][0]
            sites[-1][1] -= 1
            if not sites[-1][1]:
                sites.pop()

    for v in reversed(order):
        rooms: list[list[int]] = [[v]] + [[] for _ in range(k)]
        sites: list[list[list[int]]] = [[] for _ in range(k + 1)]
        for child in neighbours[v]:
            if child != parent[v]:
                for d in range(k):
                    rooms[d + 1] += unserved[child][d]
                    sites[d + 1] += free[child][d]
        if rooms[k]:
            placed = -(-len(rooms[k]) // s)
            for room in rooms[k]:
                site_of[room] = v
            if placed * s > len(rooms[k]):
                sites[0].append([v, placed * s - len(rooms[k])])
            rooms[k] = []
        if v:
            for total in (k, k - 1):
                for d in range(total + 1):
                    match(sites[d], rooms[total - d])
        else:
            for d in range(k, -1, -1):
                for e in range(k - d, -1, -1):
                    match(sites[d], rooms[e])
            for room in (room for bucket in rooms for room in bucket):
                site_of[room] = v
        unserved[v], free[v] = rooms, sites
    return site_of


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
        edges = random_tree(n, rng, "shuffle")
        distances = all_pairs_distances(n, edges)
        diameter = max(map(max, distances))
        k = rng.randint(1, max(1, diameter // 2))
        s = rng.randint(2, max(2, n // k))
        assignment = fewest_extinguishers(n, edges, k, s)
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
        distances = all_pairs_distances(n, data["edges"])
        if any(distances[u][p] > data["K"] for u, p in enumerate(assignment)):
            return -0.5
        return minimization_reward(data["optimum"], extinguishers(assignment, data["S"]), beta=3)
