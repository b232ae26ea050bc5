"""MaximumIndependentSetGrid: select grid cells, no two sharing a side, with the largest total value."""

import networkx as nx

from rlve_jax.gym.environments._common import grid_text, grow_1p1, maximization_reward, parse_char_grid
from rlve_jax.gym.env import Environment


def best_selection(values: list[list[int]]) -> list[str]:
    """Exact: the grid graph is bipartite (by colour of (r + c)), so the heaviest independent set is the
    complement of a minimum-weight vertex cover, read off a minimum s-t cut."""
    rows, columns = len(values), len(values[0])
    graph = nx.DiGraph()
    source, sink, unbounded = -1, -2, sum(map(sum, values)) + 1
    graph.add_nodes_from((source, sink))
    for r in range(rows):
        for c in range(columns):
            cell = r * columns + c
            if (r + c) % 2:
                graph.add_edge(cell, sink, capacity=values[r][c])
                continue
            graph.add_edge(source, cell, capacity=values[r][c])
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < rows and 0 <= nc < columns:
                    graph.add_edge(cell, nr * columns + nc, capacity=unbounded)
    _, (source_side, _) = nx.minimum_cut(graph, source, sink)
    return ["".join(str(int(((r + c) % 2 == 0) == (r * columns + c in source_side))) for c in range(columns))
            for r in range(rows)]


def selection_value(values: list[list[int]], selection: list[str]) -> int:
    return sum(v for row, picks in zip(values, selection) for v, pick in zip(row, picks) if pick == "1")


class MaximumIndependentSetGrid(Environment):
    name = "MaximumIndependentSetGrid"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        rows, columns = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        values = [[rng.randint(1, max(rows, columns)) for _ in range(columns)] for _ in range(rows)]
        selection = best_selection(values)
        return {"values": values, "optimum": selection_value(values, selection), "reference": "\n".join(selection)}

    def prompt(self, data):
        values = data["values"]
        rows, columns = len(values), len(values[0])
        return (
            f"You are given a grid with {rows} rows and {columns} columns of positive integers:\n"
            + grid_text(values)
            + "\nSelect some cells such that no two selected cells are adjacent (share a side), maximizing the sum "
            "of the selected values.\n\n"
            f"Output Format: {rows} lines, each with {columns} characters (no separators): 1 for a selected cell, "
            "0 otherwise."
        )

    def score(self, data, answer):
        values = data["values"]
        rows, columns = len(values), len(values[0])
        selection = parse_char_grid(answer, rows, columns, "01", ignore_spaces=True)
        for r in range(rows):
            for c in range(columns):
                if selection[r][c] == "1" and ((r + 1 < rows and selection[r + 1][c] == "1")
                                               or (c + 1 < columns and selection[r][c + 1] == "1")):
                    return -0.5
        return maximization_reward(selection_value(values, selection), data["optimum"], beta=3)

    def perturb(self, problem, answer):
        """Unselect one cell: values are positive, so the sum drops."""
        return answer.replace("1", "0", 1)
