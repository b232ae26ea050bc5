"""TakingPrimeGame: remove a prime number of stones; the winner hurries, the loser stalls; count the moves."""

from rlve_jax.gym.environments._common import ExactIntegerEnvironment, grow_1p1


def primes_up_to(n: int) -> list[int]:
    return [p for p in range(2, n + 1) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


def game_table(n: int) -> tuple[list[bool], list[int]]:
    """wins[s]: the mover wins from s stones; moves[s]: game length when the winner finishes fastest and the
    loser lasts longest. With 0 or 1 stones no prime can be taken and the mover loses."""
    primes = primes_up_to(n)
    wins, moves = [False] * (n + 1), [0] * (n + 1)
    for s in range(2, n + 1):
        options = [s - p for p in primes if p <= s]
        winning = [t for t in options if not wins[t]]
        wins[s] = bool(winning)
        moves[s] = 1 + (min(moves[t] for t in winning) if winning else max(moves[t] for t in options))
    return wins, moves


class TakingPrimeGame(ExactIntegerEnvironment):
    name = "TakingPrimeGame"

    def levels(self, difficulty):
        return [{"MAX_N": grow_1p1(8, difficulty)}]

    def sample(self, params, rng):
        wins, moves = game_table(params["MAX_N"])
        # As the original: a losing start with probability 0.2, otherwise a uniform winning one.
        winning = [s for s in range(1, params["MAX_N"] + 1) if wins[s]]
        losing = [s for s in range(1, params["MAX_N"] + 1) if not wins[s]]
        n = rng.choice(losing) if rng.random() < 0.2 else rng.choice(winning)
        return {"N": n, "reference": str(moves[n] if wins[n] else -1)}

    def prompt(self, data):
        return (
            f"There are {data['N']} stones. Stan and Ollie move alternately, Stan first. A move removes a prime "
            "number of stones (2, 3, 5, 7, ...), not more than the stones left. The player who cannot move loses.\n"
            "Both play optimally: a player who can win tries to win in as few total moves as possible, and a player "
            "who is going to lose tries to make the game last as many moves as possible.\n"
            "If Stan wins, how many moves (counting both players' moves) does the game last? If Stan loses, "
            "answer -1.\n\n"
            "Output Format: a single integer."
        )
