"""MaxSegmentCoverageConstraint: select as many segments as possible while every constrained point
is covered by at most its allowed number of selected segments."""

from rlve_jax.gym.environments._common import DropLastTokenPerturbation, maximization_reward, parse_distinct_indices


def coverage_ok(segments: list[list[int]], chosen: list[int], limits: list[list[int]]) -> bool:
    return all(sum(segments[i][0] <= point <= segments[i][1] for i in chosen) <= limit for point, limit in limits)


def most_segments(segments: list[list[int]], limits: list[list[int]]) -> list[int]:
    """Exact greedy: by increasing right end, keep a segment whenever the limits allow it (a kept segment
    can replace any later-ending one of an optimum covering its tight points)."""
    chosen: list[int] = []
    for i in sorted(range(len(segments)), key=lambda i: segments[i][1]):
        if coverage_ok(segments, chosen + [i], limits):
            chosen.append(i)
    return sorted(chosen)


class MaxSegmentCoverageConstraint(DropLastTokenPerturbation):
    name = "MaxSegmentCoverageConstraint"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # redraw until the limits forbid taking every segment
            segments = [sorted((rng.randint(0, 2 * n), rng.randint(0, 2 * n))) for _ in range(n)]
            planted = [i for i in range(n) if rng.random() < 0.5] or [rng.randrange(n)]
            planted_coverage = [sum(segments[i][0] <= p <= segments[i][1] for i in planted) for p in range(2 * n + 1)]
            covered = [p for p, count in enumerate(planted_coverage) if count]  # limits where planted segments lie
            limits = [[p, planted_coverage[p]] for p in sorted(rng.sample(covered, rng.randint(1, len(covered))))]
            chosen = most_segments(segments, limits)
            if len(chosen) < n:
                break
        return {"segments": segments, "limits": limits, "optimum": len(chosen), "reference": " ".join(map(str, chosen))}

    def prompt(self, data):
        segments, limits = data["segments"], data["limits"]
        return (
            f"You are given {len(segments)} segments on the number line, indexed from 0 (segment [l, r] covers "
            "every integer point p with l <= p <= r):\n"
            + "\n".join(f"segment {i}: [{l}, {r}]" for i, (l, r) in enumerate(segments))
            + "\nSelect as many distinct segments as possible such that each of the following points is covered by "
            "at most the given number of selected segments:\n"
            + "\n".join(f"point {p}: at most {limit}" for p, limit in limits)
            + "\n\nOutput Format: a single line with the indices of the selected segments separated by spaces."
        )

    def score(self, data, answer):
        segments = data["segments"]
        chosen = parse_distinct_indices(answer, len(segments))
        if chosen is None or not coverage_ok(segments, chosen, data["limits"]):
            return -0.5
        return maximization_reward(len(chosen), data["optimum"], beta=5)
