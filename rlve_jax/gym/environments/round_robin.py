"""RoundRobin: a round-robin result table whose scores (3 per win, 1 per draw) match the targets."""

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import fraction_reward, parse_lines


def scores(table: list[list[int]]) -> list[int]:
    return [sum(3 if cell == 2 else cell for cell in row) for row in table]


class RoundRobin(Environment):
    name = "RoundRobin"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        draw_probability = rng.random()
        table = [[0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                if rng.random() < draw_probability:
                    table[i][j] = table[j][i] = 1
                else:
                    winner, loser = (i, j) if rng.random() < 0.5 else (j, i)
                    table[winner][loser] = 2
        return {"N": n, "targets": scores(table), "reference": "\n".join("".join(map(str, row)) for row in table)}

    def prompt(self, data):
        n = data["N"]
        targets = "\n".join(f"player {i}: {score}" for i, score in enumerate(data["targets"]))
        return (
            f"{n} players (numbered 0 to {n - 1}) play a round-robin tournament: every pair of players plays once. "
            f"A win is worth 3 points, a draw 1 point to each player, and a loss 0 points. Construct a result table "
            f"A in which every player ends with exactly the following total score:\n{targets}\n"
            f"A[i][j] = 2 means player i beat player j, 1 means they drew, and 0 means player i lost to player j "
            f"(so A[i][j] + A[j][i] = 2), and A[i][i] = 0.\n\n"
            f"Output Format: {n} lines, line i holding the {n} digits A[i][0] ... A[i][{n - 1}] written without "
            f"separators (e.g. `{('0' + '21' * n)[:n]}`)."
        )

    def score(self, data, answer):
        n = data["N"]
        lines = ["".join(line.split()) for line in parse_lines(answer)]
        if len(lines) != n or any(len(line) != n or set(line) - set("012") for line in lines):
            raise FormatError("expected N lines of N digits 0/1/2")
        table = [[int(char) for char in line] for line in lines]
        if any(table[i][i] for i in range(n)) or any(
                table[i][j] + table[j][i] != 2 for i in range(n) for j in range(i + 1, n)):
            return -0.5
        correct = sum(got == want for got, want in zip(scores(table), data["targets"]))
        return fraction_reward(correct, n, beta=5)
