"""KnightsAndKnaves: identify knights (truth-tellers) and knaves (liars) from their statements; unique solution."""

import random
import re

from rlve_jax.env import Environment, FormatError, fraction_reward

from ._logic_util import bounded_text

NAMES = (
    "Aaron Abigail Amelia Avery Benjamin Charlotte Daniel David Elizabeth Ella Emily Emma Ethan Evelyn Grace "
    "Harper Henry Isabella Jack Jackson James Liam Lily Lucas Mason Mia Michael Noah Oliver Olivia Owen Samuel "
    "Scarlett Sebastian Sofia Sophia Victoria William Zoey Logan Luke Chloe Riley Nora Hazel Aurora Leo Ezra "
    "Jacob Aria Joseph Layla"
).split()
LEAF_KINDS = ("knight", "knave")
COMPOUND_KINDS = ("not", "and", "or", "->", "<=>")
ROLE = re.compile(r"\b([A-Z][a-z]+) is an? ([Kk]night|[Kk]nave)\b")


def random_statement(rng: random.Random, people: int) -> list:
    """Depth <= 2, width 2: a leaf about someone, or one connective over leaves."""
    kind = rng.choice(LEAF_KINDS + COMPOUND_KINDS)
    if kind in LEAF_KINDS:
        return [kind, rng.randrange(people)]
    first = [rng.choice(LEAF_KINDS), rng.randrange(people)]
    if kind == "not":
        return [kind, first]
    second = first
    while second == first:  # "A and A" says nothing new
        second = [rng.choice(LEAF_KINDS), rng.randrange(people)]
    return [kind, first, second]


class Truth:
    """Statement truth over all 2^N role assignments at once, as bit masks (bit a = assignment a)."""

    def __init__(self, people: int):
        size = 1 << people
        self.full = (1 << size) - 1
        self.knight = []
        for p in range(people):
            block = 1 << p  # assignment a has person p as a knight iff bit p of a is set
            unit = ((1 << block) - 1) << block
            self.knight.append(unit * (self.full // ((1 << (2 * block)) - 1)))

    def of(self, statement: list) -> int:
        kind, *args = statement
        if kind == "knight":
            return self.knight[args[0]]
        if kind == "knave":
            return self.full ^ self.knight[args[0]]
        parts = [self.of(arg) for arg in args]
        if kind == "not":
            return self.full ^ parts[0]
        a, b = parts
        return {"and": a & b, "or": a | b, "->": (self.full ^ a) | b, "<=>": self.full ^ (a ^ b)}[kind]

    def consistent(self, speaker: int, statement: list) -> int:
        """Assignments where the speaker's role matches the statement's truth."""
        return self.full ^ (self.knight[speaker] ^ self.of(statement))


def statement_text(statement: list, names: list[str]) -> str:
    kind, *args = statement
    if kind in LEAF_KINDS:
        return f"{names[args[0]]} is a {kind}"
    parts = [statement_text(arg, names) for arg in args]
    if kind == "not":
        return f"it is not the case that {parts[0]}"
    return {"and": "{} and {}", "or": "{} or {}", "->": "if {} then {}",
            "<=>": "{} if and only if {}"}[kind].format(*parts)


def roles_text(names: list[str], knights: list[bool]) -> str:
    return ", ".join(f"{name} is a {'knight' if k else 'knave'}" for name, k in zip(names, knights))


class KnightsAndKnaves(Environment):
    name = "KnightsAndKnaves"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty, "depth": 2, "width": 2}]

    def sample(self, params, rng):
        n = params["N"]
        truth = Truth(n)
        while True:
            names = rng.sample(NAMES, n)
            knights = [rng.random() < 0.5 for _ in range(n)]
            planted = sum(1 << p for p in range(n) if knights[p])

            def consistent_statement(speaker: int) -> list:
                while True:
                    statement = random_statement(rng, n)
                    if truth.consistent(speaker, statement) >> planted & 1:
                        return statement

            statements = [consistent_statement(p) for p in range(n)]
            for _ in range(20 * n):  # re-draw statements until the planted roles are the only solution
                solutions = truth.full
                for p, statement in enumerate(statements):
                    solutions &= truth.consistent(p, statement)
                if solutions.bit_count() == 1:
                    return {"names": names, "statements": statements, "knights": knights}
                speaker = rng.randrange(n)
                statements[speaker] = consistent_statement(speaker)

    def prompt(self, data):
        names = data["names"]
        said = "\n".join(f'{name} says: "{statement_text(s, names)}."' for name, s in zip(names, data["statements"]))
        return (
            "A very special island is inhabited only by knights and knaves. Knights always tell the truth, and "
            f"knaves always lie. You meet {len(names)} inhabitants: {', '.join(names)}.\n{said}\n\n"
            "Who is a knight and who is a knave?\n\n"
            "Output Format: a single sentence naming the role of every inhabitant exactly once, in the form "
            "\"Alice is a knight, Bob is a knave, ...\"."
        )

    def score(self, data, answer):
        names = data["names"]
        found = ROLE.findall(bounded_text(answer))
        claimed = {name: role.lower() == "knight" for name, role in found}
        if len(found) != len(names) or sorted(claimed) != sorted(names):
            raise FormatError("every inhabitant must be named exactly once")
        correct = sum(claimed[name] == knight for name, knight in zip(names, data["knights"]))
        return fraction_reward(correct, len(names), beta=10)

    def reference(self, problem):
        return roles_text(problem.data["names"], problem.data["knights"])

    def perturb(self, problem, answer):
        head, _, role = answer.rpartition(" a ")
        return f"{head} a {'knave' if role == 'knight' else 'knight'}"
