"""EightDigitPuzzle: sliding-tile puzzle on an N x M grid; give blank moves that reach the target grid."""

from rlve_jax.gym.environments._common import INVALID, grid_text, parse_letters
from rlve_jax.gym.environments._puzzles import ScrambledGridPuzzle, grid_match_reward

DIRECTIONS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def blank_position(grid: list[list[int]]) -> tuple[int, int]:
    return next((i, j) for i, row in enumerate(grid) for j, v in enumerate(row) if v == 0)


def target_cell(grid: list[list[int]], blank: tuple[int, int], direction: str) -> tuple[int, int] | None:
    """Where the blank goes, or None if it would leave the grid."""
    a, b = blank[0] + DIRECTIONS[direction][0], blank[1] + DIRECTIONS[direction][1]
    return (a, b) if 0 <= a < len(grid) and 0 <= b < len(grid[0]) else None


def slide(grid: list[list[int]], blank: tuple[int, int], to: tuple[int, int]) -> None:
    grid[blank[0]][blank[1]], grid[to[0]][to[1]] = grid[to[0]][to[1]], 0


class EightDigitPuzzle(ScrambledGridPuzzle):
    name = "EightDigitPuzzle"
    step_choices = (2, 3, 5, 10, 15, 20, 25, 30)
    first_cell = 0  # 0 is the blank

    def random_move(self, rng, grid, rules):
        blank = blank_position(grid)
        return rng.choice([d for d in DIRECTIONS if target_cell(grid, blank, d)])

    def apply_move(self, grid, move, rules):
        blank = blank_position(grid)
        slide(grid, blank, target_cell(grid, blank, move))

    def moves_text(self, moves):
        return "".join(moves)

    def prompt(self, data):
        return (
            f"You are given a {len(data['start'])} x {len(data['start'][0])} grid; 0 is the empty cell:\n"
            f"{grid_text(data['start'])}\n\n"
            "In one move you slide the empty cell one step: `U` swaps it with the cell above, `D` with the cell "
            "below, `L` with the cell to the left and `R` with the cell to the right. A move may not leave the "
            "grid. Reach this target grid:\n"
            f"{grid_text(data['target'])}\n\n"
            "Output Format: a single line with the sequence of moves, e.g. `ULDR` (letters U, D, L, R only)."
        )

    def score(self, data, answer):
        grid = [row[:] for row in data["start"]]
        blank = blank_position(grid)
        for direction in parse_letters(answer, "UDLR"):
            to = target_cell(grid, blank, direction)
            if to is None:
                return INVALID
            slide(grid, blank, to)
            blank = to
        return grid_match_reward(grid, data["target"], 10)
