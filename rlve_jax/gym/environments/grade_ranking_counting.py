"""GradeRankingCounting: grade tables with fixed 'beaten by' counts and K students dominated by student 0.

Course j alone: choose the R[j] students above student 0 and give student 0 a score t;
they get one of U[j]-t higher scores, the others one of t scores. With a set D of i
students forced never above student 0, the beaters come from the other N-1-i students:
h(i) = prod_j C(N-1-i, R[j]) g_j with g_j = sum_t (U[j]-t)^R[j] t^(N-1-R[j]). Exactly K
dominated students by inclusion-exclusion: sum_{i>=K} (-1)^(i-K) C(i, K) C(N-1, i) h(i).
"""

from math import comb, prod

from rlve_jax.gym.environments._common import BIG_PRIME_MODULI, ModCountingEnvironment, grow_1p1, mod_output_format


def count_grade_tables(n: int, bounds: list[int], beaten: list[int], k: int) -> int:
    course_ways = [sum((u - t) ** r * t ** (n - 1 - r) for t in range(1, u + 1)) for u, r in zip(bounds, beaten)]
    total = 0
    for i in range(k, n):
        forced = prod(comb(n - 1 - i, r) * g for r, g in zip(beaten, course_ways))
        total += (-1) ** (i - k) * comb(i, k) * comb(n - 1, i) * forced
    return total


class GradeRankingCounting(ModCountingEnvironment):
    name = "GradeRankingCounting"
    mod_key = "MOD"

    def levels(self, difficulty):
        return [{"MAX_N_M": grow_1p1(2, difficulty)}]

    def sample(self, params, rng):
        n, m = rng.randint(2, params["MAX_N_M"]), rng.randint(2, params["MAX_N_M"])
        bounds = [rng.randint(1, n) for _ in range(m)]
        losers = set(rng.sample(range(1, n), rng.randint(0, n - 1)))  # planted never above student 0
        first = [rng.randint(1, u) for u in bounds]
        scores = [first] + [[rng.randint(1, first[j] if s in losers else u) for j, u in enumerate(bounds)]
                            for s in range(1, n)]  # the planted table
        beaten = [sum(scores[s][j] > scores[0][j] for s in range(1, n)) for j in range(m)]
        dominated = sum(all(scores[s][j] <= scores[0][j] for j in range(m)) for s in range(1, n))
        mod = rng.choice(BIG_PRIME_MODULI)
        return {"N": n, "M": m, "U": bounds, "R": beaten, "K": dominated, "MOD": mod,
                "gold": count_grade_tables(n, bounds, beaten, dominated) % mod}

    def prompt(self, data):
        n, m = data["N"], data["M"]
        return (
            f"There are {n} students, numbered 0 to {n - 1}, and {m} courses, numbered 1 to {m}. In course j "
            "every student receives an integer score between 1 and U[j], where\n"
            f"U = {' '.join(map(str, data['U']))}\n"
            "The following is known about student 0:\n"
            f"- in course j, exactly R[j] other students have a strictly higher score than student 0, where "
            f"R = {' '.join(map(str, data['R']))};\n"
            f"- exactly {data['K']} other students are dominated by student 0, meaning their score is less "
            "than or equal to student 0's score in every course.\n"
            "How many score tables (an assignment of a score to every student in every course) are "
            "consistent with these facts? Two tables differ if some student has a different score in some "
            "course.\n\n" + mod_output_format(data["MOD"])
        )
