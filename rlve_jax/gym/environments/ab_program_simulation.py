"""ABProgramSimulation: rewrite an A::B program (tokens A#, #A, B#, #B) to its normal form."""

from collections import deque

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import grow_1p1


TOKENS = ("A#", "#A", "B#", "#B")
# A pair of neighbours whose '#' face each other is rewritten: equal letters annihilate,
# different letters swap places.
RULES = {
    ("A#", "#A"): [],
    ("B#", "#B"): [],
    ("A#", "#B"): ["#B", "A#"],
    ("B#", "#A"): ["#A", "B#"],
}
# Programs drawn per token mix before the mix is drawn again. The original draws programs of one mix until one
# normalizes within max_steps; for a few mixes almost none does (level 31, seed 38: 213,420 programs, over 2 minutes
# in the pool's worker), so generation time had no bound at any level above ~20. Mixes that succeed within this many
# draws (96 of 100 at level 31, 83 of 100 at level 40) give the original's problems.
PROGRAM_TRIES = 1000


def normalize(program: list[str], max_steps: int) -> list[str] | None:
    """The normal form, rewriting the leftmost applicable pair first; None if it needs > max_steps rewrites.

    Left of the leftmost applicable pair the program is already in normal form, so it sits on a stack: each step
    looks at the stack's top and the next token only, and a rewrite's result goes back in front of the rest.
    """
    done, rest, steps = [], deque(program), 0
    while rest:
        token = rest.popleft()
        if done and (done[-1], token) in RULES:
            steps += 1
            if steps > max_steps:
                return None
            rest.extendleft(reversed(RULES[done.pop(), token]))
        else:
            done.append(token)
    return done


class ABProgramSimulation(Environment):
    name = "ABProgramSimulation"
    empty_answer_can_solve = True  # a program may rewrite to nothing; the answer is then empty

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty), "max_steps": grow_1p1(10, difficulty)}]

    def sample(self, params, rng):
        while True:
            weights = [rng.randint(1, params["N"]) for _ in TOKENS]
            for _ in range(PROGRAM_TRIES):
                program = rng.choices(TOKENS, weights=weights, k=params["N"])
                final = normalize(program, params["max_steps"])
                if final is not None:
                    return {"program": program, "reference": " ".join(final)}

    def prompt(self, data):
        return (
            "A::B is a system with 4 tokens: `A#`, `#A`, `B#` and `#B`.\n"
            "An A::B program is a sequence of tokens. To compute it, rewrite neighbouring tokens with these rules "
            "until no rule applies:\n"
            "- `A# #A` becomes nothing\n"
            "- `B# #B` becomes nothing\n"
            "- `A# #B` becomes `#B A#`\n"
            "- `B# #A` becomes `#A B#`\n"
            "In other words, whenever two neighbouring tokens have their '#' facing each other, they are rewritten.\n\n"
            f"Compute this program:\n{' '.join(data['program'])}\n\n"
            "Output Format: the final sequence of tokens on one line, separated by single spaces "
            "(output nothing if no token remains)."
        )

    def score(self, data, answer):
        tokens = answer.split()
        if any(token not in TOKENS for token in tokens):
            raise FormatError("not a token")
        return float(tokens == data["reference"].split())
