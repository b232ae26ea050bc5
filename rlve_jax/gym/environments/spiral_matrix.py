"""SpiralMatrix (C16): list a matrix's entries in clockwise spiral order."""

from rlve_jax.gym.environments._common import IntListEnvironment, grid_text, grow_1p1


def spiral(matrix: list[list[int]]) -> list[int]:
    """Clockwise from the top-left corner."""
    rows = [list(row) for row in matrix]
    order: list[int] = []
    while rows:
        order += rows.pop(0)
        rows = [list(row) for row in zip(*rows)][::-1]  # rotate the rest counter-clockwise
    return order


class SpiralMatrix(IntListEnvironment):
    name = "SpiralMatrix"
    match_beta = 5

    def levels(self, difficulty):
        return [{"MAX_M_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        m, n = rng.randint(2, params["MAX_M_N"]), rng.randint(2, params["MAX_M_N"])
        matrix = [[rng.randint(1, m * n) for _ in range(n)] for _ in range(m)]
        return {"matrix": matrix, "gold": spiral(matrix)}

    def prompt(self, data):
        rows = grid_text(data["matrix"])
        m, n = len(data["matrix"]), len(data["matrix"][0])
        return (
            f"You are given a {m} x {n} matrix:\n{rows}\n\n"
            "List all of its elements in clockwise spiral order: start at the top-left corner, go right "
            "along the top row, then down the right column, then left along the bottom row, then up the "
            "left column, and continue inwards in the same way until every element is listed once.\n\n"
            f"Output Format: a single line with the {m * n} numbers separated by spaces."
        )
