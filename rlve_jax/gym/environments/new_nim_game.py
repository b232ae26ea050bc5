"""NewNimGame: remove whole heaps (least total) so the rest are XOR-independent and Nim is then won."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, fraction_reward, parse_ints


UNSUCCESSFUL = -0.2  # a legal removal that leaves a dependent (losable) set of heaps


def insert(basis: list[int], value: int) -> bool:
    """Add value to a XOR basis; False if it is already spanned (dependent)."""
    for b in basis:
        value = min(value, value ^ b)
    if value:
        basis.append(value)
        basis.sort(reverse=True)
    return value != 0


def independent(heaps: list[int]) -> bool:
    basis: list[int] = []
    return all(insert(basis, h) for h in heaps)


def cheapest_removal(heaps: list[int]) -> list[int]:
    """Matroid greedy: keep the largest heaps that stay independent; return the 1-based indices removed."""
    basis: list[int] = []
    order = sorted(range(len(heaps)), key=lambda i: -heaps[i])
    return sorted(i + 1 for i in order if not insert(basis, heaps[i]))


class NewNimGame(Environment):
    name = "NewNimGame"
    empty_answer_can_solve = True  # when the heaps are already independent, removing nothing is optimal

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        heaps = [rng.randint(1, 2 * n) for _ in range(n)]
        removed = cheapest_removal(heaps)
        return {"heaps": heaps, "best": sum(heaps[i - 1] for i in removed), "reference": " ".join(map(str, removed))}

    def prompt(self, data):
        heaps = data["heaps"]
        return (
            f"There are {len(heaps)} heaps of matches (numbered from 1) with sizes {' '.join(map(str, heaps))}.\n"
            "The game has two phases. In the first, you move first and may take away any set of whole heaps "
            "(possibly none, but not all of them); then your opponent may take away some of the remaining heaps "
            "(possibly none, but not all). After that, normal Nim is played on the remaining heaps, you moving "
            "first: a move removes any positive "
            "number of matches from one heap, and the player who cannot move loses.\n"
            "You can guarantee a win by taking away heaps so that no non-empty subset of the remaining heaps has "
            "XOR 0. Do so while taking away as few matches in total as possible.\n\n"
            "Output Format: a single line with the indices of the heaps you take away, separated by spaces "
            "(an empty line if you take away none)."
        )

    def score(self, data, answer):
        heaps = data["heaps"]
        removed = parse_ints(answer)
        if len(set(removed)) != len(removed) or any(not 1 <= i <= len(heaps) for i in removed):
            return INVALID
        if len(removed) == len(heaps):
            return INVALID
        chosen = set(removed)
        if not independent([h for i, h in enumerate(heaps, start=1) if i not in chosen]):
            return UNSUCCESSFUL
        taken = sum(heaps[i - 1] for i in removed)
        return fraction_reward(data["best"], taken, 3)  # taking nothing (still independent) gives 1

    def perturb(self, problem, answer):
        removed = set(parse_ints(answer))
        extra = next(i for i in range(1, len(problem.data["heaps"]) + 1) if i not in removed)
        return f"{answer} {extra}".strip()  # one more heap taken away: more matches than needed
