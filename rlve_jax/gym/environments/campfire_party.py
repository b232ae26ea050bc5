"""CampfireParty (NOIP 2005): reseat a circle so everyone sits next to both wished neighbours, at least cost."""

from rlve_jax.gym.env import Environment
from rlve_jax.gym.environments._common import INVALID, grow_1p1, parse_ints, parse_lines


UNSUCCESSFUL = -0.2  # every operation legal, but the final circle misses a wish


def best_target(order: list[int]) -> list[int]:
    """The rotation/reflection of the wished circle keeping most students on their current seat (seat p holds p)."""
    n = len(order)
    best, best_kept = order, -1
    for circle in (order, order[::-1]):
        kept = [0] * n
        for seat, student in enumerate(circle):
            kept[(seat - student) % n] += 1
        shift = max(range(n), key=kept.__getitem__)
        if kept[shift] > best_kept:
            best_kept = kept[shift]
            best = [circle[(seat + shift) % n] for seat in range(n)]
    return best


def cycles_to(target: list[int]) -> list[list[int]]:
    """Operations (b1 ... bm) moving every student from seat = own id to its seat in `target`."""
    seat_of = {student: seat for seat, student in enumerate(target)}
    done, operations = set(), []
    for first in range(len(target)):
        if first in done or seat_of[first] == first:
            continue
        cycle, student = [], first
        while student not in done:  # it moves to its target seat, whose current occupant has the seat's id
            done.add(student)
            cycle.append(student)
            student = seat_of[student]
        operations.append(cycle)
    return operations


class CampfireParty(Environment):
    name = "CampfireParty"

    def levels(self, difficulty):
        return [{"N": grow_1p1(4, difficulty)}]

    def sample(self, params, rng):
        n = params["N"]
        while True:  # a wished circle the initial seating already satisfies would make the empty answer optimal
            order = list(range(n))
            rng.shuffle(order)
            target = best_target(order)
            cost = sum(student != seat for seat, student in enumerate(target))
            if cost:
                break
        wishes = [sorted((order[(k - 1) % n], order[(k + 1) % n])) for k in range(n)]
        wishes = [pair for _, pair in sorted(zip(order, wishes))]
        return {"N": n, "wishes": wishes, "optimum": cost, "target": target}

    def prompt(self, data):
        n = data["N"]
        wish_lines = "\n".join(f"Student {i} wants to sit next to {a} and {b}"
                               for i, (a, b) in enumerate(data["wishes"]))
        return (
            f"{n} students, numbered 0 to {n - 1}, sit on a circle of {n} seats: initially seat p (p = 0..{n - 1}) "
            "holds student p, and seat p is adjacent to seats p-1 and p+1 (seat 0 is adjacent to seat "
            f"{n - 1}).\n{wish_lines}\n\n"
            "You may perform operations. An operation (b1, b2, ..., bm) with distinct students moves, at the same "
            "time, student b1 to the seat of b2, b2 to the seat of b3, ..., b(m-1) to the seat of bm, and bm to the "
            "seat of b1; it costs m. Perform operations so that in the end every student sits next to both "
            "wished neighbours, with the minimum total cost.\n\n"
            "Output Format: one operation per line, the student ids b1 b2 ... bm separated by spaces; the "
            "operations are applied in order from the first line to the last."
        )

    def score(self, data, answer):
        n = data["N"]
        operations = [parse_ints(line) for line in parse_lines(answer)]
        seat_of = list(range(n))
        cost = 0
        for operation in operations:
            if any(not 0 <= b < n for b in operation) or len(set(operation)) != len(operation):
                return INVALID
            seats = [seat_of[b] for b in operation]
            for b, seat in zip(operation, seats[1:] + seats[:1]):
                seat_of[b] = seat
            cost += len(operation)
        circle = [0] * n
        for student, seat in enumerate(seat_of):
            circle[seat] = student
        for seat, student in enumerate(circle):
            if sorted((circle[seat - 1], circle[(seat + 1) % n])) != data["wishes"][student]:
                return UNSUCCESSFUL
        return (data["optimum"] / cost) ** 3  # cost > 0: the initial seating never satisfies the wishes

    def reference(self, problem):
        return "\n".join(" ".join(map(str, cycle)) for cycle in cycles_to(problem.data["target"]))

    def perturb(self, problem, answer):
        return answer + "\n0"  # a one-student operation changes nothing but costs 1
