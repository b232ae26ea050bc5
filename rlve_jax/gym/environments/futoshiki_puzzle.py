"""FutoshikiPuzzle (held-out): complete a Latin square that respects given cells and '<' constraints."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_int_grid
from rlve_jax.gym.environments._puzzles import SPARSITIES, is_latin_square, random_latin_square
from rlve_jax.gym.env import Environment

class FutoshikiPuzzle(Environment):
    name = "FutoshikiPuzzle"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty, "sparsity": s} for s in SPARSITIES]

    def sample(self, params, rng):
        n = params["N"]
        solution = random_latin_square(n, rng)
        cells = [(i, j) for i in range(n) for j in range(n)]
        blanks = set(rng.sample(cells, max(1, int(n * n * params["sparsity"]))))
        puzzle = [[-1 if (i, j) in blanks else solution[i][j] for j in range(n)] for i in range(n)]
        constraints = set()
        for _ in range(2 * n):  # up to 2N inequalities that the planted solution satisfies
            a, b = rng.sample(cells, 2)
            if solution[a[0]][a[1]] > solution[b[0]][b[1]]:
                a, b = b, a
            if solution[a[0]][a[1]] < solution[b[0]][b[1]]:
                constraints.add((a, b))
        ordered = sorted(constraints)
        rng.shuffle(ordered)
        return {"N": n, "puzzle": puzzle, "constraints": [[*a, *b] for a, b in ordered],
                "reference": grid_text(solution)}

    def prompt(self, data):
        n = data["N"]
        constraints = "\n".join(f"c[{r1}][{c1}] < c[{r2}][{c2}]" for r1, c1, r2, c2 in data["constraints"])
        return (
            f"Fill an {n} x {n} grid c with the numbers 0 to {n - 1} so that every row and every column contains "
            f"each of 0..{n - 1} exactly once (a Latin square). Some cells are already filled (-1 marks an empty "
            "cell); they must be kept. Rows and columns are indexed from 0.\n"
            f"{grid_text(data['puzzle'])}\n\n"
            f"In addition, the following inequalities must hold:\n{constraints}\n\n"
            f"Output Format: {n} lines, each with {n} integers separated by spaces: the completed grid, row by row."
        )

    def score(self, data, answer):
        n = data["N"]
        grid = parse_int_grid(answer, n, n)
        kept = all(given < 0 or given == grid[i][j]
                   for i, row in enumerate(data["puzzle"]) for j, given in enumerate(row))
        if not kept or not is_latin_square(grid, n):
            return INVALID
        satisfied = sum(grid[r1][c1] < grid[r2][c2] for r1, c1, r2, c2 in data["constraints"])
        return fraction_reward(satisfied, len(data["constraints"]), beta=5)
