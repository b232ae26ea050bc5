"""BlockImage: draw the ASCII isometric picture of stacked unit cubes on an M x N height grid."""

from rlve_jax.gym.environments._common import INVALID, fraction_reward, grid_text, parse_lines
from rlve_jax.gym.env import Environment, FormatError


CUBE = (  # top line first; '.' is transparent
    "..+---+",
    "./   /|",
    "+---+ |",
    "|   | +",
    "|   |/.",
    "+---+..",
)
PICTURE_CHARS = set(".+-/| ")


def render(heights: list[list[int]]) -> list[str]:
    """Paint cubes back row to front row, left to right, bottom to top; later cubes cover earlier ones."""
    m, n = len(heights), len(heights[0])
    height = max(2 * (m - 1 - i) + 3 * h + 3 for i, row in enumerate(heights) for h in row)
    width = 4 * n + 2 * m + 1
    canvas = [["."] * width for _ in range(height)]
    for i, row in enumerate(heights):
        for j, h in enumerate(row):
            for k in range(h):
                bottom = 2 * (m - 1 - i) + 3 * k  # canvas line of the cube's lowest line, counted from the bottom
                left = 4 * j + 2 * (m - 1 - i)
                for dy, line in enumerate(reversed(CUBE)):
                    for dx, ch in enumerate(line):
                        if ch != ".":
                            canvas[height - 1 - (bottom + dy)][left + dx] = ch
    return ["".join(line) for line in canvas]


class BlockImage(Environment):
    name = "BlockImage"

    def levels(self, difficulty):
        return [{"MAX_M_N": 2 + difficulty}]

    def sample(self, params, rng):
        m, n = rng.randint(1, params["MAX_M_N"]), rng.randint(1, params["MAX_M_N"])
        heights = [[rng.randint(1, 5) for _ in range(n)] for _ in range(m)]
        return {"heights": heights, "picture": render(heights)}

    def prompt(self, data):
        heights = data["heights"]
        m, n = len(heights), len(heights[0])
        grid = grid_text(heights)
        cube = "\n".join(CUBE)
        return (
            f"A {m} x {n} area is covered with stacks of unit cubes; the number in row i, column j is the height "
            "of the stack there (row 0 is the farthest from the viewer, the last row the nearest; column 0 is "
            f"on the left):\n{grid}\n\n"
            "One cube is drawn as the following 6 lines of 7 characters, where '.' means transparent:\n"
            f"{cube}\n\n"
            "Draw the whole scene on a canvas filled with '.':\n"
            f"- The canvas is {4 * n + 2 * m + 1} characters wide and exactly tall enough for the highest cube "
            "(no empty line of '.' above it).\n"
            "- Number canvas lines from the bottom (0) and canvas columns from the left (0). The cube at level k "
            "(k = 0 at the ground) of the stack in row i, column j has its bottom-left '+' at canvas line "
            f"2*({m}-1-i) + 3*k and canvas column 4*j + 2*({m}-1-i).\n"
            "- Draw cubes from the farthest row to the nearest, within a row from left to right, and within a "
            "stack from bottom to top; every non-transparent character of a later cube (spaces included) "
            "overwrites what is below it.\n\n"
            "Output Format: the picture, top line first, one canvas line per line, using only the characters "
            "'.', '+', '-', '/', '|' and space."
        )

    def score(self, data, answer):
        lines = parse_lines(answer)  # picture lines never start or end with a space
        if not lines or len({len(line) for line in lines}) != 1:
            raise FormatError("empty or ragged picture")
        if any(ch not in PICTURE_CHARS for line in lines for ch in line):
            return INVALID
        picture = data["picture"]
        if len(lines) != len(picture) or len(lines[0]) != len(picture[0]):
            return 0.0
        same = sum(a == b for line, gold in zip(lines, picture) for a, b in zip(line, gold))
        return fraction_reward(same, len(picture) * len(picture[0]), beta=2)

    def reference(self, problem):
        return "\n".join(problem.data["picture"])
