"""Maze: a shortest move string from the top-left to the bottom-right cell of an N x N maze."""

from collections import deque

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grow_1p1, parse_letters
from rlve_jax.gym.env import Environment


DENSITIES = (0.1, 0.2, 0.3, 0.4)
STEPS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
UNSUCCESSFUL = -0.2  # a legal walk that does not end at the goal


def shortest_moves(maze: list[str]) -> str | None:
    """BFS from the top-left cell; the move string of a shortest path to the bottom-right cell."""
    n = len(maze)
    previous = {(0, 0): None}
    queue = deque([(0, 0)])
    while queue:
        cell = queue.popleft()
        for letter, (di, dj) in STEPS.items():
            nxt = (cell[0] + di, cell[1] + dj)
            if 0 <= nxt[0] < n and 0 <= nxt[1] < n and maze[nxt[0]][nxt[1]] == "." and nxt not in previous:
                previous[nxt] = (cell, letter)
                queue.append(nxt)
    if (n - 1, n - 1) not in previous:
        return None
    moves, cell = [], (n - 1, n - 1)
    while previous[cell] is not None:
        cell, letter = previous[cell]
        moves.append(letter)
    return "".join(reversed(moves))


class Maze(Environment):
    name = "Maze"
    size_keys = ("N",)

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty), "density": density} for density in DENSITIES]

    def sample(self, params, rng):
        n = params["N"]
        inner = [(i, j) for i in range(n) for j in range(n) if (i, j) not in ((0, 0), (n - 1, n - 1))]
        while True:
            walls = set(rng.sample(inner, int(params["density"] * n * n)))
            maze = ["".join("#" if (i, j) in walls else "." for j in range(n)) for i in range(n)]
            moves = shortest_moves(maze)
            if moves is not None:
                return {"maze": maze, "reference": moves}

    def prompt(self, data):
        n = len(data["maze"])
        return (
            f"You are given a maze of {n} x {n} cells; `.` is an open cell and `#` is a wall:\n"
            + "\n".join(data["maze"])
            + f"\n\nStart at the top-left cell (0, 0) and reach the bottom-right cell ({n - 1}, {n - 1}) with as "
            "few moves as possible. Each move goes one cell up (`U`), down (`D`), left (`L`) or right (`R`); you "
            "may not enter a wall or leave the maze.\n\n"
            "Output Format: a single line with the sequence of moves, e.g. `RRDDLD` (letters U, D, L, R only)."
        )

    def score(self, data, answer):
        maze, n = data["maze"], len(data["maze"])
        i = j = 0
        moves = parse_letters(answer, "UDLR")
        for letter in moves:
            i, j = i + STEPS[letter][0], j + STEPS[letter][1]
            if not (0 <= i < n and 0 <= j < n) or maze[i][j] == "#":
                return INVALID
        if (i, j) != (n - 1, n - 1):
            return UNSUCCESSFUL
        return fraction_reward(len(data["reference"]), len(moves), 3)

    def perturb(self, problem, answer):
        detour = "UD" if problem.data["maze"][-2][-1] == "." else "LR"
        return answer + detour  # a longer walk that still ends at the goal
