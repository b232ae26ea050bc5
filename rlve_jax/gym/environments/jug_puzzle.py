"""JugPuzzle (held-out): Fill/Empty/Pour actions that leave the target volume in some jug."""

import re

from rlve_jax.gym.env import Environment, FormatError
from rlve_jax.gym.environments._common import INVALID, parse_lines

ACTION = re.compile(r"(fill|empty)\s+([0-9]+)|pour\s+([0-9]+)\s+([0-9]+)", re.IGNORECASE | re.ASCII)
STEPS = tuple(range(3, 11)) + tuple(range(15, 51, 5))  # the original's 16 walk lengths
ACTION_WEIGHTS = (0.1, 0.1, 0.8)  # Fill, Empty, Pour


def apply(action: list[int], volumes: list[int], capacities: list[int]) -> None:
    """[0, i] fills jug i, [1, i] empties it, [2, i, j] pours i into j until i is empty or j is full."""
    if action[0] == 0:
        volumes[action[1]] = capacities[action[1]]
    elif action[0] == 1:
        volumes[action[1]] = 0
    else:
        i, j = action[1], action[2]
        moved = min(volumes[i], capacities[j] - volumes[j])
        volumes[i] -= moved
        volumes[j] += moved


def action_text(action: list[int]) -> str:
    return ("Fill {}", "Empty {}", "Pour {} {}")[action[0]].format(*action[1:])


class JugPuzzle(Environment):
    name = "JugPuzzle"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty, "steps": steps} for steps in STEPS]

    def sample(self, params, rng):
        """The original's random walk: `steps` effective actions (type Fill/Empty/Pour with weights
        0.1/0.1/0.8, then uniform jugs; redrawn until the action changes the state). After each action the
        positive volumes present, minus every earlier candidate, every capacity and every capacity
        difference, are the candidates; when there are any, the target becomes one of them and the
        reference the actions so far. Before the walk the target is a uniform jug's capacity ("Fill j")."""
        n = params["N"]
        capacities = [rng.randint(2, 10 * n) for _ in range(n)]
        jug = rng.randrange(n)
        target, reference = capacities[jug], [[0, jug]]
        excluded = set(capacities) | {a - b for a in capacities for b in capacities}
        volumes, actions = [0] * n, []
        for _ in range(params["steps"]):
            while True:
                kind = rng.choices((0, 1, 2), weights=ACTION_WEIGHTS)[0]
                if kind == 2:
                    i, j = rng.randrange(n), rng.randrange(n)
                    if i != j and volumes[i] > 0 and volumes[j] < capacities[j]:
                        action = [2, i, j]
                        break
                else:
                    i = rng.randrange(n)
                    if volumes[i] < capacities[i] if kind == 0 else volumes[i] > 0:
                        action = [kind, i]
                        break
            apply(action, volumes, capacities)
            actions.append(action)
            candidates = sorted({v for v in volumes if v > 0} - excluded)
            if candidates:
                target, reference = rng.choice(candidates), list(actions)
                excluded.update(candidates)
        return {"capacities": capacities, "target": target, "reference": "\n".join(map(action_text, reference))}

    def prompt(self, data):
        capacities = data["capacities"]
        jugs = "\n".join(f"Jug {i}: capacity {c}" for i, c in enumerate(capacities))
        return (
            f"You have {len(capacities)} jugs, all initially empty:\n{jugs}\n\n"
            "The available actions are:\n"
            "Fill i: fill jug i to its capacity.\n"
            "Empty i: pour all water out of jug i.\n"
            "Pour i j: pour water from jug i into jug j until jug i is empty or jug j is full.\n\n"
            f"Perform a sequence of actions after which at least one jug contains exactly {data['target']} "
            "units of water.\n\n"
            "Output Format: one action per line, exactly as written above (for example `Pour 0 2`), in the order "
            "they are performed."
        )

    def score(self, data, answer):
        capacities = data["capacities"]
        n = len(capacities)
        actions = []
        for line in parse_lines(answer):
            match = ACTION.fullmatch(line)
            if not match:
                raise FormatError(f"malformed action {line[:40]!r}")
            if match.group(1):
                kind = 0 if match.group(1).lower() == "fill" else 1
                jugs = [int(match.group(2))]
            else:
                kind, jugs = 2, [int(match.group(3)), int(match.group(4))]
            if any(j >= n for j in jugs) or (kind == 2 and jugs[0] == jugs[1]):
                return INVALID
            actions.append([kind, *jugs])
        volumes = [0] * n
        for action in actions:
            apply(action, volumes, capacities)
        return float(data["target"] in volumes)

    def perturb(self, problem, answer):
        n = len(problem.data["capacities"])
        return answer + "".join(f"\nEmpty {i}" for i in range(n))  # ends with every jug empty
