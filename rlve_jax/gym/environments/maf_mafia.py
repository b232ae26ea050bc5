"""MafMafia (POI "Mafia"): every gangster shoots a fixed target on his turn if still alive; choose the
order of turns to minimize or maximize (drawn per instance) the number of dead."""

from collections import deque

from rlve_jax.gym.environments._common import (
    functional_cycles, grow_1p1, maximization_reward, minimization_reward, parse_permutation,
)
from rlve_jax.gym.env import Environment


def deaths(targets: list[int], order: list[int]) -> int:
    alive = [True] * len(targets)
    for shooter in order:
        if alive[shooter]:
            alive[targets[shooter]] = False
    return alive.count(False)


def complete_order(order: list[int], n: int) -> list[int]:
    """Append everyone not yet in the order (by then dead, so their turns change nothing)."""
    placed = set(order)
    return order + [v for v in range(n) if v not in placed]


def fewest_deaths_order(targets: list[int]) -> list[int]:
    """Nobody aims at a gangster with no pending live shooter, so he survives: let such safe gangsters shoot
    first, freeing the targets of their victims. What is left are pure cycles, where every second one
    shoots, losing ceil(L / 2) of a cycle of length L."""
    n = len(targets)
    pending_aimers = [0] * n
    for t in targets:
        pending_aimers[t] += 1
    alive, acted = [True] * n, [False] * n
    order: list[int] = []
    queue = deque(v for v in range(n) if not pending_aimers[v])
    while queue:
        shooter = queue.popleft()
        order.append(shooter)
        acted[shooter] = True
        victim = targets[shooter]
        if alive[victim]:
            alive[victim] = False
            if not acted[victim]:  # the victim's own shot is cancelled
                freed = targets[victim]
                pending_aimers[freed] -= 1
                if not pending_aimers[freed] and alive[freed] and not acted[freed]:
                    queue.append(freed)
    remaining = [t if alive[v] and not acted[v] else v for v, t in enumerate(targets)]
    for cycle in functional_cycles(remaining):
        if alive[cycle[0]] and not acted[cycle[0]]:
            order += cycle[::2]
    return complete_order(order, n)


def most_deaths_order(targets: list[int]) -> list[int]:
    """Only gangsters nobody aims at must survive. On each cycle c0 -> c1 -> ... the turns c_{L-2}, ..., c_0
    kill c_{L-1}, ..., c_1; then tree gangsters shoot by increasing distance to their cycle, so each shoots
    before the ones aiming at him, which kills every gangster with an aimer (c_0 included if a tree hangs on
    it; a pure cycle keeps c_0, a lone self-aimer shoots himself)."""
    n = len(targets)
    on_cycle = [False] * n
    order: list[int] = []
    all_cycles = functional_cycles(targets)
    for cycle in all_cycles:
        for v in cycle:
            on_cycle[v] = True
    for cycle in all_cycles:
        anchors = [i for i, c in enumerate(cycle) if any(targets[u] == c and not on_cycle[u] for u in range(n))]
        start = anchors[0] if anchors else 0
        rotated = cycle[start:] + cycle[:start]
        order += rotated[-2::-1] if len(rotated) > 1 else ([] if anchors else rotated)
    depth = [0 if on_cycle[v] else -1 for v in range(n)]
    while -1 in depth:
        for v in range(n):
            if depth[v] < 0 and depth[targets[v]] >= 0:
                depth[v] = depth[targets[v]] + 1
    order += sorted((v for v in range(n) if not on_cycle[v]), key=depth.__getitem__)
    return complete_order(order, n)


class MafMafia(Environment):
    name = "MafMafia"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        targets = [rng.randint(0, n - 1) for _ in range(n)]
        maximize = rng.random() < 0.5
        order = most_deaths_order(targets) if maximize else fewest_deaths_order(targets)
        return {"targets": targets, "maximize": maximize, "optimum": deaths(targets, order),
                "reference": " ".join(map(str, order))}

    def prompt(self, data):
        targets = data["targets"]
        n = len(targets)
        goal = "maximize" if data["maximize"] else "minimize"
        return (
            f"There are {n} people numbered 0 to {n - 1}. Person i has a fixed target TO[i] (possibly i "
            f"itself):\n{' '.join(f'TO[{i}]={t}' for i, t in enumerate(targets))}\n"
            "Every person gets exactly one turn, in an order you choose. On person i's turn, if i is still alive, "
            "i kills TO[i] (nothing happens if TO[i] is already dead); a dead person does nothing on his turn. "
            f"Choose the order to {goal} the number of people who are dead at the end.\n\n"
            f"Output Format: a single line with a permutation of 0..{n - 1} (the order of turns), separated by "
            "spaces."
        )

    def score(self, data, answer):
        order = parse_permutation(answer, len(data["targets"]))
        if order is None:
            return -0.5
        dead = deaths(data["targets"], order)
        if data["maximize"]:
            return maximization_reward(dead, data["optimum"], beta=5)
        return minimization_reward(data["optimum"], dead, beta=5)
