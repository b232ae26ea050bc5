"""LandAcquisition (held-out): group plots so the sum over groups of max(W) * max(L) is minimal."""

from rlve_jax.gym.environments._common import INVALID, minimization_reward, parse_int_rows
from rlve_jax.gym.env import Environment


def optimal_groups(widths: list[int], lengths: list[int]) -> tuple[int, list[list[int]]]:
    """(minimum cost, groups of 0-based indices).

    Plots dominated in both dimensions ride free with a dominating plot. The rest, sorted by
    width ascending, have lengths descending, and an optimal grouping takes contiguous runs:
    cost[j] = min over i of cost[i] + W[j-1] * L[i].
    """
    n = len(widths)
    order = sorted(range(n), key=lambda i: (-widths[i], -lengths[i]))
    frontier, owner = [], {}
    for i in order:  # widest first: keep a plot only if it is longer than every wider one
        if frontier and lengths[frontier[-1]] >= lengths[i]:
            owner[i] = frontier[-1]
        else:
            frontier.append(i)
    frontier.reverse()  # width ascending, length descending
    k = len(frontier)
    cost, cut = [0] + [None] * k, [0] * (k + 1)
    for j in range(1, k + 1):
        for i in range(j):
            value = cost[i] + widths[frontier[j - 1]] * lengths[frontier[i]]
            if cost[j] is None or value < cost[j]:
                cost[j], cut[j] = value, i
    groups, j = [], k
    while j:
        groups.append(frontier[cut[j]:j])
        j = cut[j]
    group_of = {plot: g for g, members in enumerate(groups) for plot in members}
    for plot, boss in owner.items():
        while boss in owner:
            boss = owner[boss]
        groups[group_of[boss]].append(plot)
    return cost[k], [sorted(g) for g in groups]


def grouping_cost(groups: list[list[int]], widths: list[int], lengths: list[int]) -> int:
    return sum(max(widths[i] for i in g) * max(lengths[i] for i in g) for g in groups)


def best_naive_cost(widths: list[int], lengths: list[int]) -> int:
    """The cheapest of the original's naive groupings: one group, all singletons, or the plots sorted by
    (W, L) cut into a prefix and a suffix group."""
    n = len(widths)
    order = sorted(range(n), key=lambda i: (widths[i], lengths[i]))
    splits = [grouping_cost([order[:k], order[k:]], widths, lengths) for k in range(1, n)]
    return min([grouping_cost([order], widths, lengths), sum(w * h for w, h in zip(widths, lengths)), *splits])


class LandAcquisition(Environment):
    name = "LandAcquisition"

    def levels(self, difficulty):
        return [{"N": 4 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # as the original: redraw while a naive grouping is already optimal
            widths = [rng.randint(1, n * n) for _ in range(n)]
            lengths = [rng.randint(1, n * n) for _ in range(n)]
            best, groups = optimal_groups(widths, lengths)
            if best < best_naive_cost(widths, lengths):
                break
        return {"W": widths, "L": lengths, "optimum": best,
                "reference": "\n".join(" ".join(str(i + 1) for i in g) for g in groups)}

    def prompt(self, data):
        plots = "\n".join(f"Plot {i + 1}: W={w} L={length}" for i, (w, length) in enumerate(zip(data["W"], data["L"])))
        return (
            f"There are {len(data['W'])} plots of land, numbered from 1:\n{plots}\n\n"
            "Partition the plots into groups (every plot in exactly one group). A group costs "
            "(largest W in the group) * (largest L in the group). Minimize the total cost of all groups.\n\n"
            "Output Format: one group per line, each line listing the plot numbers of that group separated by spaces."
        )

    def score(self, data, answer):
        groups = [[i - 1 for i in row] for row in parse_int_rows(answer)]
        n = len(data["W"])
        flat = sorted(i for g in groups for i in g)
        if flat != list(range(n)):
            return INVALID
        return minimization_reward(data["optimum"], grouping_cost(groups, data["W"], data["L"]), beta=5)
