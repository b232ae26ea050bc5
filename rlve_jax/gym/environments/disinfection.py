"""Disinfection (POI-style "disinfection"): clear all 1-cells of a 3D box with axis-aligned sub-box
operations, each costing its smallest side length; minimize the total cost."""

from itertools import product

from rlve_jax.gym.environments._common import min_vertex_cover, minimization_reward, parse_int_rows
from rlve_jax.gym.env import Environment, FormatError


def cheapest_cleaning(cells: list[list[list[int]]]) -> list[list[int]]:
    """Exact. A box with smallest side s is no better than s unit-thick full planes, so the task is to
    cover every 1 by the fewest axis-parallel planes: try every set of planes across the axis with the
    fewest occupied layers and cover the rest with planes of the other two axes (a bipartite vertex
    cover, by Konig)."""
    sizes = [len(cells), len(cells[0]), len(cells[0][0])]
    ones = [(x, y, z) for x, y, z in product(*map(range, sizes)) if cells[x][y][z]]
    layers = [sorted({cell[a] for cell in ones}) for a in range(3)]  # only planes holding a 1 are worth taking
    axis = min(range(3), key=lambda a: len(layers[a]))
    u_axis, v_axis = [a for a in range(3) if a != axis]
    best: list[list[int]] = [[axis, i] for i in layers[axis]]
    for chosen in range(1 << len(layers[axis])):
        taken = [layers[axis][i] for i in range(len(layers[axis])) if chosen >> i & 1]
        if len(taken) >= len(best):
            continue
        adjacent: list[list[int]] = [[] for _ in range(sizes[u_axis])]
        for cell in ones:
            if cell[axis] not in taken:
                adjacent[cell[u_axis]].append(cell[v_axis])
        cover_u, cover_v = min_vertex_cover(sizes[u_axis], sizes[v_axis], adjacent)
        if len(taken) + len(cover_u) + len(cover_v) < len(best):
            best = [[axis, i] for i in taken] + [[u_axis, i] for i in cover_u] + [[v_axis, i] for i in cover_v]
    boxes = []
    for axis_of, index in best:
        bounds = [[1, size] for size in sizes]
        bounds[axis_of] = [index + 1, index + 1]
        boxes.append([b for pair in bounds for b in pair])
    return boxes


def box_cost(box: list[int]) -> int:
    return min(box[1] - box[0], box[3] - box[2], box[5] - box[4]) + 1


def uncleared(cells: list[list[list[int]]], boxes: list[list[int]]) -> bool:
    """Whether some 1-cell is outside every box, by a 3D difference array (O(1) per box)."""
    a, b, c = len(cells), len(cells[0]), len(cells[0][0])
    delta = [[[0] * (c + 1) for _ in range(b + 1)] for _ in range(a + 1)]
    for x1, x2, y1, y2, z1, z2 in boxes:
        for x, y, z in product((x1 - 1, x2), (y1 - 1, y2), (z1 - 1, z2)):
            delta[x][y][z] += (-1) ** ((x == x2) + (y == y2) + (z == z2))
    for axis_pass in range(3):  # prefix sums along each axis in turn
        for x, y, z in product(range(a + 1), range(b + 1), range(c + 1)):
            step = [x, y, z]
            if step[axis_pass]:
                step[axis_pass] -= 1
                delta[x][y][z] += delta[step[0]][step[1]][step[2]]
    return any(cells[x][y][z] and not delta[x][y][z] for x, y, z in product(range(a), range(b), range(c)))


class Disinfection(Environment):
    name = "Disinfection"

    def levels(self, difficulty):
        return [{"MAX_A_B_C": 2 + difficulty}]

    def sample(self, params, rng):
        sizes = [rng.randint(1, params["MAX_A_B_C"]) for _ in range(3)]
        window = [sorted(rng.randint(0, s - 1) for _ in range(2)) for s in sizes]
        density = rng.uniform(0.2, 0.8)
        while True:
            cells = [[[int(all(lo <= i <= hi for i, (lo, hi) in zip((x, y, z), window)) and rng.random() < density)
                       for z in range(sizes[2])] for y in range(sizes[1])] for x in range(sizes[0])]
            if any(v for plane in cells for row in plane for v in row):
                break
        boxes = cheapest_cleaning(cells)
        return {"cells": cells, "optimum": len(boxes), "reference": "\n".join(" ".join(map(str, b)) for b in boxes)}

    def prompt(self, data):
        cells = data["cells"]
        a, b, c = len(cells), len(cells[0]), len(cells[0][0])
        layers = "\n\n".join(f"x = {x + 1}:\n" + "\n".join("".join(map(str, row)) for row in plane)
                             for x, plane in enumerate(cells))
        return (
            f"A box of size {a} x {b} x {c} is made of unit cells with coordinates (x, y, z), 1 <= x <= {a}, "
            f"1 <= y <= {b}, 1 <= z <= {c}. Each cell holds 0 or 1. Below, for each x there are {b} lines "
            f"(y = 1..{b}) of {c} digits (z = 1..{c}):\n{layers}\n\n"
            "One operation chooses a sub-box x1 <= x <= x2, y1 <= y <= y2, z1 <= z <= z2 and sets all its cells "
            "to 0; it costs min(x2 - x1 + 1, y2 - y1 + 1, z2 - z1 + 1). Make every cell 0 with the minimum "
            "total cost.\n\n"
            "Output Format: one line per operation with six integers `x1 x2 y1 y2 z1 z2` separated by spaces."
        )

    def score(self, data, answer):
        cells = data["cells"]
        sizes = (len(cells), len(cells[0]), len(cells[0][0]))
        boxes = parse_int_rows(answer)
        if any(len(box) != 6 for box in boxes):
            raise FormatError("each operation needs six integers")
        if any(not 1 <= box[2 * k] <= box[2 * k + 1] <= sizes[k] for box in boxes for k in range(3)):
            return -0.5
        if uncleared(cells, boxes):
            return -0.2
        return minimization_reward(data["optimum"], sum(map(box_cost, boxes)), beta=5)
