"""LASLaser: rays from the origin may each cross a segment at most once; hit the most segments with K rays."""

from fractions import Fraction

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import parse_int


def most_segments_hit(segments: list[list[int]], rays: int) -> int:
    """Segments become angle intervals (slopes, all points lie in the open first quadrant).

    Candidate directions are the interval ends and the midpoints between neighbouring ends; a DP picks
    increasing directions where no interval holds two consecutive picks (then no interval holds two at all).
    """
    intervals = [sorted((Fraction(y1, x1), Fraction(y2, x2))) for x1, y1, x2, y2 in segments]
    ends = sorted({end for interval in intervals for end in interval})
    candidates = ends + [(a + b) / 2 for a, b in zip(ends, ends[1:])]
    candidates.sort()
    cover = [sum(1 << k for k, (lo, hi) in enumerate(intervals) if lo <= t <= hi) for t in candidates]
    gain = [mask.bit_count() for mask in cover]
    best: list[int | None] = list(gain)  # most hits with the rays used so far, the last one at candidate q
    answer = max(gain)
    for _ in range(rays - 1):
        extended: list[int | None] = []
        for q in range(len(candidates)):
            before = [best[p] for p in range(q) if best[p] is not None and not cover[p] & cover[q]]
            extended.append(gain[q] + max(before) if before else None)
        best = extended
        answer = max([answer] + [value for value in best if value is not None])
    return answer


class LASLaser(Environment):
    name = "LASLaser"

    def levels(self, difficulty):
        return [{"N": 2 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        segments = []
        while len(segments) < n:
            segment = [rng.randint(1, 2 * n) for _ in range(4)]
            if segment[:2] != segment[2:]:
                segments.append(segment)
        rays = rng.randint(1, max(1, n // 2))
        return {"segments": segments, "K": rays, "answer": most_segments_hit(segments, rays)}

    def prompt(self, data):
        lines = "\n".join(f"Segment {i}: from ({x1}, {y1}) to ({x2}, {y2})"
                          for i, (x1, y1, x2, y2) in enumerate(data["segments"]))
        return (
            f"There are {len(data['segments'])} line segments in the plane:\n{lines}\n\n"
            f"You may shoot at most {data['K']} laser rays. Every ray starts at the origin (0, 0) and goes straight "
            "in a direction of your choice; it hits a segment if it has at least one point in common with it "
            "(rays pass through segments). No segment may be hit by more than one ray. What is the maximum number "
            "of segments that can be hit?\n\n"
            "Output Format: a single integer, the maximum number of segments hit."
        )

    def score(self, data, answer):
        return float(parse_int(answer) == data["answer"])

    def reference(self, problem):
        return str(problem.data["answer"])
