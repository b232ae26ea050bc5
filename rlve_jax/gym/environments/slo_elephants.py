"""SLOElephants: reorder a line of elephants into a target order by swapping pairs; swapping elephants
i and j costs C[i] + C[j]. Minimize the total cost (POI 2009 "Slonie")."""

from rlve_jax.gym.environments._common import INVALID, drop_last_line, grow_1p1, minimization_reward, parse_pair_lines
from rlve_jax.gym.env import Environment


def cheapest_swaps(current: list[int], target: list[int], weight: dict[int, int]) -> list[tuple[int, int]]:
    """Per cycle of the rearrangement, the cheaper of: rotate it with its lightest elephant m
    (sum + (len - 2) m), or borrow the globally lightest g (sum + m + (len + 1) g)."""
    line = list(current)
    position = {label: i for i, label in enumerate(line)}
    lightest = min(line, key=lambda label: (weight[label], label))
    swaps: list[tuple[int, int]] = []

    def swap(x: int, y: int) -> None:
        i, j = position[x], position[y]
        line[i], line[j] = y, x
        position[x], position[y] = j, i
        swaps.append((x, y))

    seen = set()
    for start in range(len(line)):
        if start in seen or line[start] == target[start]:
            continue
        cycle, i = [], start
        while i not in seen:
            seen.add(i)
            cycle.append(line[i])
            i = position[target[i]]
        mover = min(cycle, key=lambda label: (weight[label], label))
        total = sum(weight[label] for label in cycle)
        own = total + (len(cycle) - 2) * weight[mover]
        borrowed = total + weight[mover] + (len(cycle) + 1) * weight[lightest]
        if borrowed < own:
            swap(lightest, mover)
            while target[position[lightest]] != mover:
                swap(lightest, target[position[lightest]])
            swap(lightest, mover)
        else:
            while target[position[mover]] != mover:
                swap(mover, target[position[mover]])
    return swaps


def apply_swaps(line: list[int], swaps: list[list[int]]) -> list[int]:
    line = list(line)
    position = {label: i for i, label in enumerate(line)}
    for x, y in swaps:
        i, j = position[x], position[y]
        line[i], line[j] = y, x
        position[x], position[y] = j, i
    return line


class SLOElephants(Environment):
    name = "SLOElephants"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        current, target = list(range(1, n + 1)), list(range(1, n + 1))
        while current == target:
            rng.shuffle(current)
            rng.shuffle(target)
        weights = [rng.randint(1, n) for _ in range(n)]
        swaps = cheapest_swaps(current, target, dict(zip(range(1, n + 1), weights)))
        return {"current": current, "target": target, "C": weights,
                "optimum": sum(weights[x - 1] + weights[y - 1] for x, y in swaps),
                "reference": "\n".join(f"{x} {y}" for x, y in swaps)}

    def prompt(self, data):
        n = len(data["C"])
        weights = " ".join(f"C[{i + 1}]={c}" for i, c in enumerate(data["C"]))
        return (
            f"There are {n} elephants labelled 1 to {n}, standing in a line in this order:\n"
            f"{' '.join(map(str, data['current']))}\n"
            f"They must be rearranged into this order:\n{' '.join(map(str, data['target']))}\n\n"
            "In one step you may swap the positions of any two different elephants i and j, which costs "
            f"C[i] + C[j], where {weights}.\nMinimize the total cost of reaching the target order.\n\n"
            "Output Format: one swap per line, in the order they are performed, written as the two labels `i j` "
            "separated by a space."
        )

    def score(self, data, answer):
        swaps = parse_pair_lines(answer)
        n = len(data["C"])
        if any(not (1 <= x <= n and 1 <= y <= n) or x == y for x, y in swaps):
            return INVALID
        if apply_swaps(data["current"], swaps) != data["target"]:
            return -0.2
        cost = sum(data["C"][x - 1] + data["C"][y - 1] for x, y in swaps)
        return minimization_reward(data["optimum"], cost, beta=5)

    def perturb(self, problem, answer):
        return drop_last_line(answer)
