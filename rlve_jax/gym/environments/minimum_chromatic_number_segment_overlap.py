"""MinimumChromaticNumber_SegmentOverlap: color segments so that overlapping ones differ, with the fewest colors."""

from rlve_jax.gym.environments._common import grow_1p1, minimization_reward
from rlve_jax.gym.environments._graphs import parse_colors, recolor_perturb
from rlve_jax.gym.env import Environment


def overlap(a: list[int], b: list[int]) -> bool:
    """Closed segments overlap when they share at least one point."""
    return max(a[0], b[0]) <= min(a[1], b[1])


def interval_coloring(segments: list[list[int]]) -> list[int]:
    """Greedy by left end, reusing the lowest free color: optimal for interval graphs (= maximum overlap)."""
    colors = [-1] * len(segments)
    for i in sorted(range(len(segments)), key=lambda i: segments[i]):
        taken = {colors[j] for j in range(len(segments)) if colors[j] >= 0 and overlap(segments[i], segments[j])}
        colors[i] = min(set(range(len(segments))) - taken)
    return colors


class MinimumChromaticNumber_SegmentOverlap(Environment):
    name = "MinimumChromaticNumber_SegmentOverlap"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        segments = []
        for _ in range(n):
            left, right = sorted((rng.randint(1, 2 * n - 1), rng.randint(1, 2 * n - 1)))
            segments.append([left, right])
        colors = interval_coloring(segments)
        return {"N": n, "segments": segments, "optimum": len(set(colors)), "reference": " ".join(map(str, colors))}

    def prompt(self, data):
        n = data["N"]
        segments = "\n".join(f"Segment {i}: [{l}, {r}]" for i, (l, r) in enumerate(data["segments"]))
        return (
            f"You are given {n} segments on a number line (both endpoints included):\n{segments}\n\n"
            f"Assign each segment i a color c[i], an integer from 0 to {n - 1}, so that any two segments that "
            "overlap (share at least one point) have different colors, using as few distinct colors as "
            "possible.\n\n"
            f"Output Format: a single line with {n} integers c[0] c[1] ... c[{n - 1}], separated by spaces."
        )

    def score(self, data, answer):
        colors = parse_colors(answer, data["N"])
        segments = data["segments"]
        if colors is None or any(colors[i] == colors[j] and overlap(segments[i], segments[j])
                                 for i in range(len(segments)) for j in range(i)):
            return -0.5
        return minimization_reward(data["optimum"], len(set(colors)), beta=5)

    def perturb(self, problem, answer):
        return recolor_perturb(answer)
