"""HURWarehouseStore (POI "Warehouse Store"): goods arrive each day and one customer asks for some
amount; serve as many customers as possible without ever running out of stock."""

import heapq

from rlve_jax.gym.environments._common import DropLastTokenPerturbation, maximization_reward, parse_distinct_indices


def most_customers(arrivals: list[int], demands: list[int]) -> list[int]:
    """Exact greedy: serve each customer if stock allows; otherwise, if a served customer wanted more,
    drop the largest one instead (same count, more stock left). Returns 0-based days."""
    stock, served = 0, []  # served: max-heap of (-demand, day)
    for day, (arrival, demand) in enumerate(zip(arrivals, demands)):
        stock += arrival
        if demand <= stock:
            stock -= demand
            heapq.heappush(served, (-demand, day))
        elif served and -served[0][0] > demand:
            stock += -heapq.heapreplace(served, (-demand, day))[0] - demand
    return sorted(day for _, day in served)


class HURWarehouseStore(DropLastTokenPerturbation):
    name = "HURWarehouseStore"

    def levels(self, difficulty):
        return [{"N": 3 + difficulty}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # redraw instances where nobody can be served
            arrivals = [rng.randint(0, n) for _ in range(n)]
            demands = [rng.randint(1, n) for _ in range(n)]
            days = most_customers(arrivals, demands)
            if days:
                break
        return {"A": arrivals, "B": demands, "optimum": len(days), "reference": " ".join(str(d + 1) for d in days)}

    def prompt(self, data):
        arrivals, demands = data["A"], data["B"]
        n = len(arrivals)
        return (
            f"A store runs for {n} days (days 1 to {n}) and starts with no goods. On the morning of day i, "
            "A[i] units arrive; later that day one customer asks for B[i] units. You may serve a customer "
            "only by giving all B[i] units at once from the current stock, or refuse. Serve as many customers "
            "as possible.\n"
            f"A: {' '.join(map(str, arrivals))}\nB: {' '.join(map(str, demands))}\n\n"
            "Output Format: a single line with the days (1-based) of the customers you serve, separated by "
            "spaces."
        )

    def score(self, data, answer):
        arrivals, demands = data["A"], data["B"]
        days = parse_distinct_indices(answer, len(arrivals), base=1)
        if days is None:
            return -0.5
        served, stock = set(days), 0
        for day, (arrival, demand) in enumerate(zip(arrivals, demands)):
            stock += arrival - demand * (day in served)
            if stock < 0:
                return -0.5
        return maximization_reward(len(days), data["optimum"], beta=5)
