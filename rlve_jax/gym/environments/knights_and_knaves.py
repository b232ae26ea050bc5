"""KnightsAndKnaves: identify knights (truth-tellers) and knaves (liars) from their statements; unique solution."""

import random
import re

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import check_length, fraction_reward


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


def is_true(statement: list, knights: dict[int, bool]) -> bool:
    kind, *args = statement
    if kind in LEAF_KINDS:
        return knights[args[0]] == (kind == "knight")
    parts = [is_true(arg, knights) for arg in args]
    if kind == "not":
        return not parts[0]
    a, b = parts
    return {"and": a and b, "or": a or b, "->": not a or b, "<=>": a == b}[kind]


def people_in(statement: list) -> set[int]:
    kind, *args = statement
    return {args[0]} if kind in LEAF_KINDS else set().union(*(people_in(arg) for arg in args))


def count_solutions(statements: list[list], limit: int = 2) -> int:
    """Role assignments where every speaker is a knight iff their statement is true, counted up to `limit`.

    Each statement involves at most three people, so a backtracking search that checks every constraint as soon
    as all its people have roles stays small even where 2^N enumeration would not.
    """
    n = len(statements)
    scopes = [sorted(people_in(s) | {speaker}) for speaker, s in enumerate(statements)]
    order = sorted(range(n), key=lambda p: -sum(p in scope for scope in scopes))
    position = {p: k for k, p in enumerate(order)}
    ready: list[list[int]] = [[] for _ in range(n)]  # constraints whose last person (in search order) is order[k]
    for speaker, scope in enumerate(scopes):
        ready[max(position[p] for p in scope)].append(speaker)
    knights: dict[int, bool] = {}

    def search(k: int) -> int:
        if k == n:
            return 1
        found = 0
        for role in (True, False):
            knights[order[k]] = role
            if all(knights[speaker] == is_true(statements[speaker], knights) for speaker in ready[k]):
                found += search(k + 1)
                if found >= limit:
                    break
        del knights[order[k]]
        return found

    return search(0)


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
        while True:
            names = rng.sample(NAMES, n)
            knights = {p: rng.random() < 0.5 for p in range(n)}

            def consistent_statement(speaker: int) -> list:
                while True:
                    statement = random_statement(rng, n)
                    if knights[speaker] == is_true(statement, knights):
                        return statement

            statements = [consistent_statement(p) for p in range(n)]
            for _ in range(20 * n):  # re-draw statements until the planted roles are the only solution
                if count_solutions(statements) == 1:
                    return {"names": names, "statements": statements, "knights": [knights[p] for p in range(n)]}
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
        found = ROLE.findall(check_length(answer))
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
