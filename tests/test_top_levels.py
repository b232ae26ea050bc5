"""Every environment's top level (rlve_jax/gym/top_levels.json, measured by experiments/find_top_levels.py): the
probe's rule holds there and at the level below, in fresh workers with Python's default limits; levels above the
top are refused, and the CLI says so in one line."""

import concurrent.futures
import json
import multiprocessing
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rlve_jax.gym import registry
from rlve_jax.gym.env import ANSWER_BUDGET_CHARS, TOP_LEVELS_PATH, DifficultyTooHigh, top_levels
from rlve_jax.gym.environments._common import CountingEnvironment
from rlve_jax.gym.environments.ab_program_simulation import RULES as AB_RULES, TOKENS as AB_TOKENS
from rlve_jax.gym.environments.ab_program_simulation import normalize as ab_normalize
from rlve_jax.gym.environments.binario import random_grid_without_triples
from rlve_jax.gym.environments.smallest_circle import on_a_line_with_two

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "experiments"))
import find_top_levels as probe  # noqa: E402

# The CI slice of the probe's check: the environments with the longest recorded reference answers (cheap, and the
# nearest to the output budget and to Python's 4,300-digit limit) over seeds 0-2, and the slowest on seed 0.
LONGEST_ANSWERS, SLOWEST = 25, 5


def check_tops(jobs: list[tuple[str, list[str]]]) -> dict[str, dict]:
    """probe.check (the top level and the one below) for each (environment, probe flags), two at a time."""
    args = {tuple(flags): probe.parse_args(flags) for _, flags in jobs}

    def one(job):
        name, flags = job
        levels = probe.Levels(name, args[tuple(flags)])
        return name, probe.check(levels, levels.environment.max_difficulty)

    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # the work is in the probe's workers
        return dict(pool.map(one, jobs))


def test_every_environment_has_a_measured_top_level():
    names = registry.names()
    missing = [n for n in names if n not in top_levels()]
    assert not missing, f"run experiments/find_top_levels.py for {missing}"
    assert all(0 <= registry.make(n).max_difficulty <= 40 for n in names)


def test_the_longest_answers_and_the_slowest_generators_hold_at_their_top_level_and_the_one_below():
    """The all-400 check below, for a slice: generate, the reference verifies, memory, prompt and answer within the
    budgets, in the probe's fresh workers. CPU time gets twice the probe's 2 s: the slowest sit just under it, and
    contention on a loaded CI machine adds CPU time too."""
    rows = json.loads(TOP_LEVELS_PATH.read_text())["levels"]
    longest = sorted(rows, key=lambda n: (-rows[n]["worst"]["answer_chars"], n))[:LONGEST_ANSWERS]
    slowest = [n for n in sorted(rows, key=lambda n: (-rows[n]["worst"]["seconds"], n)) if n not in longest][:SLOWEST]
    flags = ["--time-s", "4"]
    verdicts = check_tops([(n, ["--seeds", "3", *flags]) for n in longest] + [(n, ["--seeds", "1", *flags])
                                                                              for n in slowest])
    assert not {n: v for n, v in verdicts.items() if not v["passes"]}


@pytest.mark.slow  # 8,000 problems in fresh workers: tens of minutes on 2 cores
def test_every_environment_holds_at_its_top_level_and_the_one_below():
    """The probe's rule over seeds 0-9 (python experiments/find_top_levels.py --check)."""
    verdicts = check_tops([(n, []) for n in registry.names()])
    assert not {n: v for n, v in verdicts.items() if not v["passes"]}


class LongCount(CountingEnvironment):
    """A 4,400-digit count, past Python's 4,300-digit int<->str limit."""

    name = "TestOnlyLongCount"

    def levels(self, difficulty):
        return [{}]

    def sample(self, params, rng):
        return {"gold": 10**4400 + rng.randint(0, 9)}

    def prompt(self, data):
        return "How many?"


class DeclaredLongCount(LongCount):
    name = "TestOnlyDeclaredLongCount"
    long_answers = True


def test_the_probe_measures_under_pythons_default_digit_limit_whatever_its_own_interpreter_has(monkeypatch):
    """A worker started without the limit still judges with it: an answer past 4,300 digits verifies only in an
    environment that declares `long_answers` (the answer budget raised here so only the limit decides)."""
    monkeypatch.setenv("PYTHONINTMAXSTRDIGITS", "0")
    args = probe.parse_args(["--seeds", "1", "--answer-chars", "5000"])
    args.context = multiprocessing.get_context("spawn")  # a new interpreter that starts with the variable
    assert probe.judge_level(LongCount(), 0, args)["stopped_by"] == "reference"
    assert probe.judge_level(DeclaredLongCount(), 0, args)["passes"]


def test_the_probes_workers_reset_pythons_limits():
    digits, depth = sys.get_int_max_str_digits(), sys.getrecursionlimit()
    try:
        sys.set_int_max_str_digits(0)
        sys.setrecursionlimit(20_000)
        probe.python_defaults()
        assert (sys.get_int_max_str_digits(), sys.getrecursionlimit()) == (4300, 1000)
    finally:
        sys.set_int_max_str_digits(digits)
        sys.setrecursionlimit(depth)


def test_the_table_records_its_rule_and_the_seeds_of_each_row():
    data = json.loads(TOP_LEVELS_PATH.read_text())
    defaults = probe.parse_args([])
    assert data["budgets"] == {"time_cpu_s_p95": defaults.time_s, "memory_mb": defaults.memory_mb,
                               "prompt_chars": defaults.prompt_chars, "answer_chars": ANSWER_BUDGET_CHARS,
                               "max_level": defaults.max_level}
    for name, row in data["levels"].items():  # seeds 0-9, or 0-49 where a scan past seed 9 found a failing draw
        seeds = row["seed_list"]
        assert seeds[:len(defaults.seed_list)] == defaults.seed_list and seeds == list(range(len(seeds))), name
        assert row["budgets"] == data["budgets"], name


def test_levels_above_the_top_are_refused():
    for env in registry.make_all(registry.names()):
        with pytest.raises(DifficultyTooHigh, match=f"{env.name}: difficulty {env.max_difficulty + 1} is above"):
            env.generate(env.max_difficulty + 1, 0)


@pytest.mark.parametrize("difficulty", ["1000000", "-3"])
def test_envs_show_rejects_out_of_range_levels_in_one_line(difficulty):
    result = subprocess.run([sys.executable, "-m", "rlve_jax.gym.envs", "show", "Sorting", "--difficulty", difficulty],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error: Sorting")


# ---------------------------------------------------------------------------
# Generators reworked to hold at their top levels


def recursive_grid_without_triples(rng: random.Random, rows: int, cols: int) -> list[str]:
    """Binario's search as a recursion (one frame per cell), as it was before it needed 1,000+ frames."""
    grid = [[""] * cols for _ in range(rows)]

    def fill(k: int) -> bool:
        if k == rows * cols:
            return True
        r, c = divmod(k, cols)
        options = ["0", "1"]
        rng.shuffle(options)
        for value in options:
            if (c >= 2 and grid[r][c - 1] == grid[r][c - 2] == value) or (
                    r >= 2 and grid[r - 1][c] == grid[r - 2][c] == value):
                continue
            grid[r][c] = value
            if fill(k + 1):
                return True
        return False

    fill(0)
    return ["".join(row) for row in grid]


def test_binario_draws_the_grids_of_the_recursive_search_without_its_depth():
    sizes = random.Random(0)
    for seed in range(60):
        rows, cols = sizes.randint(1, 20), sizes.randint(1, 20)
        assert (random_grid_without_triples(random.Random(seed), rows, cols)
                == recursive_grid_without_triples(random.Random(seed), rows, cols)), (rows, cols, seed)
    depth = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(probe.PYTHON_RECURSION_LIMIT)
        grid = random_grid_without_triples(random.Random(3), 42, 42)  # 1,764 cells: the largest of level 40
    finally:
        sys.setrecursionlimit(depth)
    lines = grid + ["".join(column) for column in zip(*grid)]
    assert len(grid) == 42 and all(len(line) == 42 and "000" not in line and "111" not in line for line in lines)


def test_smallest_circle_rejects_a_point_on_a_line_through_two_others_as_testing_every_pair_does():
    rng = random.Random(0)
    for _ in range(400):
        points = [list(p) for p in {(rng.randint(0, 6), rng.randint(0, 6)) for _ in range(rng.randint(0, 8))}]
        p = [rng.randint(0, 6), rng.randint(0, 6)]
        if p in points:
            continue
        pairwise = any((b[0] - a[0]) * (p[1] - a[1]) == (b[1] - a[1]) * (p[0] - a[0])
                       for i, a in enumerate(points) for b in points[i + 1:])
        assert on_a_line_with_two(p, points) == pairwise, (p, points)


def leftmost_rewrites(program: list[str], max_steps: int) -> list[str] | None:
    """The A::B rules applied to the leftmost pair, the whole program scanned again after each rewrite."""
    program = list(program)
    for _ in range(max_steps + 1):
        pair = next((i for i in range(len(program) - 1) if (program[i], program[i + 1]) in AB_RULES), None)
        if pair is None:
            return program
        program[pair:pair + 2] = AB_RULES[program[pair], program[pair + 1]]
    return None


def test_ab_program_simulation_rewrites_as_the_leftmost_rule_and_draws_a_hopeless_token_mix_again():
    rng = random.Random(0)
    for _ in range(3000):
        program = rng.choices(AB_TOKENS, weights=[rng.randint(1, 9) for _ in AB_TOKENS], k=rng.randint(0, 40))
        max_steps = rng.randint(0, 80)
        assert ab_normalize(program, max_steps) == leftmost_rewrites(program, max_steps), (program, max_steps)
    # Level 31, seed 38 draws a token mix that needs 213,420 programs before one normalizes within max_steps (over
    # 2 minutes in a worker); after PROGRAM_TRIES programs the mix is drawn again.
    env = registry.make("ABProgramSimulation")
    start = time.process_time()
    problem = env.generate(31, 38)
    assert time.process_time() - start < 2.0
    (params,) = env.levels(31)
    assert leftmost_rewrites(problem.data["program"], params["max_steps"]) == problem.data["reference"].split()
