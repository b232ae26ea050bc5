"""MinimumCost_MaximumFlow: per-edge flows forming a maximum s-t flow of minimum cost."""

import networkx as nx

from rlve_jax.gym.environments._common import grow_1p1, minimization_reward, parse_ints, sweep
from rlve_jax.gym.environments._graphs import graph_text, pair_count, random_pairs
from rlve_jax.gym.env import Environment, FormatError

DENSITIES = (0.01,) + sweep(0.05, 0.5, 0.05)  # the original's 11 values


class MinimumCost_MaximumFlow(Environment):
    name = "MinimumCost_MaximumFlow"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty), "edge_density": rho} for rho in DENSITIES]

    def sample(self, params, rng):
        """A planted path 0 -> ... -> N-1 of U[2, min(5, N-1)] edges with capacities U[5, 10] guarantees a
        positive flow; the other edges (capacity U[1, 10]) never enter 0 or leave N-1."""
        n = params["N"]
        middle = rng.sample(range(1, n - 1), rng.randint(2, min(5, n - 1)) - 1)
        path = [0] + middle + [n - 1]
        planted = [[a, b, rng.randint(5, 10), rng.randint(1, 10)] for a, b in zip(path, path[1:])]
        forbidden = planted + [[v, 0] for v in range(1, n)] + [[n - 1, v] for v in range(n - 1)]
        extra = max(0, int(params["edge_density"] * pair_count(n, directed=True)) - len(planted))
        others = random_pairs(n, extra, rng, directed=True, exclude=forbidden)
        edges = planted + [[s, t, rng.randint(1, 10), rng.randint(1, 10)] for s, t in others]
        rng.shuffle(edges)
        graph = nx.DiGraph()
        for s, t, capacity, cost in edges:
            graph.add_edge(s, t, capacity=capacity, weight=cost)
        flow = nx.max_flow_min_cost(graph, 0, n - 1)
        flows = [flow[s][t] for s, t, _, _ in edges]
        value = sum(flows[i] for i, e in enumerate(edges) if e[0] == 0)
        return {"N": n, "edges": edges, "max_flow": value,
                "min_cost": sum(f * e[3] for f, e in zip(flows, edges)), "reference": " ".join(map(str, flows))}

    def prompt(self, data):
        n = data["N"]
        return (
            graph_text(n, data["edges"], directed=True,
                       edge_form=", each written as (s, t, c, w) for an edge from s to t with capacity c and "
                                 "cost w per unit of flow")
            + f"The source is vertex 0 and the sink is vertex {n - 1}. "
            "Assign a flow f to every edge such that 0 <= f <= c, and for every vertex other than the source "
            "and the sink the total incoming flow equals the total outgoing flow. The flow value is the total "
            "flow leaving the source. Find a flow whose value is maximum and, among those, whose total cost "
            "(the sum of f * w over all edges) is minimum.\n\n"
            f"Output Format: a single line with {len(data['edges'])} integers separated by spaces: the flows "
            "on the edges, in the order in which the edges are listed above."
        )

    def score(self, data, answer):
        flows = parse_ints(answer)
        edges = data["edges"]
        if len(flows) != len(edges):
            raise FormatError("one flow per edge expected")
        balance = [0] * data["N"]
        for f, (s, t, capacity, _) in zip(flows, edges):
            if not 0 <= f <= capacity:
                return -0.5
            balance[s] -= f
            balance[t] += f
        if any(balance[1:-1]):
            return -0.5
        value = -balance[0]
        reward = 0.5 * (value / data["max_flow"]) ** 5
        if value == data["max_flow"]:
            cost = sum(f * e[3] for f, e in zip(flows, edges))
            reward += 0.5 * minimization_reward(data["min_cost"], cost, beta=5)
        return reward
