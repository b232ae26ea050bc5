"""MaximumPointSegmentMatching: match points to segments that contain them, as many pairs as possible."""

from rlve_jax.gym.environments._common import (
    INVALID, fraction_reward, grow_1p1, max_bipartite_matching, parse_pair_lines,
)
from rlve_jax.gym.env import Environment


def max_matching(points: list[int], segments: list[list[int]]) -> list[tuple[int, int]]:
    """Kuhn's augmenting paths on the point-segment containment graph; returns (point, segment) pairs."""
    containing = [[s for s, (low, high) in enumerate(segments) if low <= p <= high] for p in points]
    owner = max_bipartite_matching(len(points), len(segments), containing)  # segment -> matched point
    return sorted((point, s) for s, point in enumerate(owner) if point >= 0)


class MaximumPointSegmentMatching(Environment):
    name = "MaximumPointSegmentMatching"

    def levels(self, difficulty):
        return [{"MAX_C_N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        top = params["MAX_C_N"]
        c, n = rng.randint(2, top), rng.randint(2, top)
        while True:
            points = [rng.randint(0, top) for _ in range(c)]
            segments = [sorted((rng.randint(0, top), rng.randint(0, top))) for _ in range(n)]
            matching = max_matching(points, segments)
            if matching:  # at least one pair, so the empty answer never wins
                return {"points": points, "segments": segments, "best": len(matching)}

    def prompt(self, data):
        points = "\n".join(f"Point {i}: {p}" for i, p in enumerate(data["points"]))
        segments = "\n".join(f"Segment {i}: [{a}, {b}]" for i, (a, b) in enumerate(data["segments"]))
        return (
            f"There are {len(data['points'])} points on a number line:\n{points}\n"
            f"and {len(data['segments'])} closed segments:\n{segments}\n\n"
            "Match points to segments so that every matched point lies inside its segment (endpoints included) "
            "and every point and every segment is used at most once. Find a matching with as many pairs as "
            "possible.\n\n"
            "Output Format: one pair per line, `c n`, meaning point c is matched to segment n (0-based indices)."
        )

    def score(self, data, answer):
        points, segments = data["points"], data["segments"]
        pairs = parse_pair_lines(answer)
        used_points, used_segments = set(), set()
        for c, s in pairs:
            if not (0 <= c < len(points) and 0 <= s < len(segments)) or c in used_points or s in used_segments:
                return INVALID
            if not segments[s][0] <= points[c] <= segments[s][1]:
                return INVALID
            used_points.add(c)
            used_segments.add(s)
        return fraction_reward(len(pairs), data["best"], 5)

    def reference(self, problem):
        return "\n".join(f"{c} {s}" for c, s in max_matching(problem.data["points"], problem.data["segments"]))

    def perturb(self, problem, answer):
        return "\n".join(answer.splitlines()[:-1])  # one pair fewer
