"""MinSumDistanceSquare: a half-integer X on a line minimizing the sum over groups of the squared distance
from X to the group's nearest point; the answer is the integer 2X."""

from rlve_jax.gym.environments._common import grow_1p1, minimization_reward, parse_int
from rlve_jax.gym.env import Environment


def quadruple_cost(groups: list[list[int]], doubled_x: int) -> int:
    """4 x the cost of X = doubled_x / 2, an exact integer."""
    return sum(min((doubled_x - 2 * p) ** 2 for p in group) for group in groups)


class MinSumDistanceSquare(Environment):
    name = "MinSumDistanceSquare"

    def levels(self, difficulty):
        return [{"M": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        m = params["M"]
        group_count = rng.randint(2, m)
        labels = list(range(group_count)) + [rng.randrange(group_count) for _ in range(m - group_count)]
        rng.shuffle(labels)
        groups: list[list[int]] = [[] for _ in range(group_count)]
        for label in labels:
            groups[label].append(rng.randint(-m, m))
        # Beyond the outermost points every distance grows, so the optimum lies in [-M, M].
        doubled_x = min(range(-2 * m, 2 * m + 1), key=lambda x2: quadruple_cost(groups, x2))
        return {"groups": groups, "optimum4": quadruple_cost(groups, doubled_x), "reference": str(doubled_x)}

    def prompt(self, data):
        groups = "\n".join(f"Group {g}: " + " ".join(map(str, points)) for g, points in enumerate(data["groups"]))
        return (
            f"There are {len(data['groups'])} groups of points on a number line, given by their coordinates:\n"
            f"{groups}\n\n"
            "Choose a position X that is a multiple of 0.5. For every group, take the distance from X to the "
            "nearest point of that group, and square it. Minimize the sum of these squared distances over all "
            "groups.\n\n"
            "Output Format: a single integer, equal to 2X (for example, output 7 for X = 3.5 and -4 for X = -2)."
        )

    def score(self, data, answer):
        return minimization_reward(data["optimum4"], quadruple_cost(data["groups"], parse_int(answer)), beta=5)

    def perturb(self, problem, answer):
        """X = 4M is farther than 2M from every point, while the optimum is within 2M of all of them."""
        return str(8 * sum(len(group) for group in problem.data["groups"]))
