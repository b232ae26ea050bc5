"""TaskArrangement: run tasks in order on one machine in consecutive batches, each batch preceded by a
setup time S; all tasks of a batch finish together. Minimize the sum of finish time x cost factor F."""

from itertools import accumulate

from rlve_jax.gym.environments._common import INVALID, grow_1p1, minimization_reward
from rlve_jax.gym.environments._segmentation import ends_text, optimal_segmentation, parse_batch_ends
from rlve_jax.gym.env import Environment, FormatError


def schedule_cost(times: list[int], factors: list[int], setup: int, ends: list[int]) -> int:
    clock = total = 0
    for start, end in zip([0, *ends], ends):
        clock += setup + sum(times[start:end])
        total += clock * sum(factors[start:end])
    return total


def best_schedule(times: list[int], factors: list[int], setup: int) -> tuple[int, list[int]]:
    """A batch starting after task j delays every later task by S, so charge S x (all F from j on) when
    the batch opens: batch [j, i) costs prefixT[i] x F[j:i] + S x F[j:]."""
    n = len(times)
    prefix_t, prefix_f = list(accumulate(times, initial=0)), list(accumulate(factors, initial=0))
    return optimal_segmentation(
        n, lambda j, i: prefix_t[i] * (prefix_f[i] - prefix_f[j]) + setup * (prefix_f[n] - prefix_f[j]))


class TaskArrangement(Environment):
    name = "TaskArrangement"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        times = [rng.randint(1, n) for _ in range(n)]
        factors = [rng.randint(1, n) for _ in range(n)]
        setup = rng.randint(0, 3 * n)
        best, ends = best_schedule(times, factors, setup)
        return {"T": times, "F": factors, "S": setup, "optimum": best, "reference": ends_text(ends)}

    def prompt(self, data):
        n = len(data["T"])
        tasks = "\n".join(f"Task {i + 1}: T={t}, F={f}" for i, (t, f) in enumerate(zip(data["T"], data["F"])))
        return (
            f"There are {n} tasks, numbered 1 to {n}, that must be processed in this order on one machine:\n"
            f"{tasks}\n\n"
            f"The tasks are split into batches of consecutive tasks. Starting at time 0, each batch first needs a "
            f"setup time of S = {data['S']}, then takes the sum of the T values of its tasks; all tasks of a batch "
            "finish when the batch finishes. Each task costs its finish time multiplied by its F. Minimize the "
            "total cost.\n\n"
            "Output Format: a single line with the index of the last task of each batch, in increasing order and "
            f"separated by spaces; the last one must be {n}. For example, `2 {n}` means the batches 1..2 and "
            f"3..{n}."
        )

    def score(self, data, answer):
        if not answer.strip():
            raise FormatError("empty answer")  # the original: an empty answer is a format error (-1)
        ends = parse_batch_ends(answer, len(data["T"]))
        if ends is None:
            return INVALID
        return minimization_reward(data["optimum"], schedule_cost(data["T"], data["F"], data["S"], ends), beta=3)
