"""KosDicing: pick a winner for every game so that the most wins by any player is exactly K."""

from rlve_jax.gym.environments._common import INVALID, drop_last_tokens, grow_1p1, parse_ints, sweep
from rlve_jax.gym.env import Environment


class KosDicing(Environment):
    name = "KosDicing"

    def levels(self, difficulty):
        n = grow_1p1(3, difficulty)
        return [{"N": n, "M": int(m * n)} for m in sweep(1.0, 2.0)]

    def sample(self, params, rng):
        n = params["N"]
        games = [rng.sample(range(n), 2) for _ in range(params["M"])]
        winners = [rng.choice(pair) for pair in games]  # a planted outcome fixes the target K
        return {"N": n, "games": games, "K": max(winners.count(p) for p in range(n)),
                "reference": " ".join(map(str, winners))}

    def prompt(self, data):
        n, games = data["N"], data["games"]
        lines = "\n".join(f"Game {g}: player {a} vs player {b}" for g, (a, b) in enumerate(games))
        return (
            f"There are {n} players numbered 0 to {n - 1} and {len(games)} games, each between two players:\n"
            f"{lines}\n\n"
            "Every game has exactly one winner, one of its two players. Choose the winners so that the largest "
            f"number of games won by a single player is exactly {data['K']}.\n\n"
            f"Output Format: a single line with {len(games)} integers separated by spaces: the winner of game 0, "
            "game 1, and so on."
        )

    def score(self, data, answer):
        winners = parse_ints(answer)
        games = data["games"]
        if len(winners) != len(games) or any(w not in pair for w, pair in zip(winners, games)):
            return INVALID
        return float(max(winners.count(p) for p in range(data["N"])) == data["K"])

    def perturb(self, problem, answer):
        return drop_last_tokens(answer)
