"""PipelineArrangement (held-out): two-machine flow shop; order the jobs to minimize the makespan."""

from rlve_jax.gym.environments._common import INVALID, grow_1p1, is_permutation, minimization_reward, parse_ints
from rlve_jax.gym.env import Environment


def makespan(order: list[int], first: list[int], second: list[int]) -> int:
    end_first = end_second = 0
    for job in order:
        end_first += first[job]
        end_second = max(end_second, end_first) + second[job]
    return end_second


def johnson_order(first: list[int], second: list[int]) -> list[int]:
    """Johnson's rule: jobs faster on machine 1 first by ascending A, then the rest by descending B."""
    jobs = range(len(first))
    front = sorted((j for j in jobs if first[j] < second[j]), key=lambda j: (first[j], j))
    back = sorted((j for j in jobs if first[j] >= second[j]), key=lambda j: (-second[j], j))
    return front + back


class PipelineArrangement(Environment):
    name = "PipelineArrangement"

    def levels(self, difficulty):
        return [{"N": grow_1p1(3, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        first = [rng.randint(1, n) for _ in range(n)]
        second = [rng.randint(1, n) for _ in range(n)]
        order = johnson_order(first, second)
        return {"A": first, "B": second, "optimum": makespan(order, first, second),
                "reference": " ".join(map(str, order))}

    def prompt(self, data):
        n = len(data["A"])
        jobs = "\n".join(f"Job {i}: A={a} B={b}" for i, (a, b) in enumerate(zip(data["A"], data["B"])))
        return (
            f"There are {n} jobs and two machines. Each job is processed first on machine 1 for A time units and "
            "then on machine 2 for B time units. Both machines process the jobs in the same order, one job at a "
            "time; a job can start on machine 2 only after it has finished on machine 1 and machine 2 is free.\n"
            f"{jobs}\n\n"
            "Find an order of the jobs that minimizes the time at which the last job finishes on machine 2.\n\n"
            f"Output Format: a single line with a permutation of 0..{n - 1} (the job order), separated by spaces."
        )

    def score(self, data, answer):
        order = parse_ints(answer)
        if not is_permutation(order, len(data["A"])):
            return INVALID
        return minimization_reward(data["optimum"], makespan(order, data["A"], data["B"]), beta=5)
