"""Command line for the gym: list environments, show a problem, export a dataset, score responses.

  python -m rlve_jax.gym.envs list [--collection C16] [--implemented]
  python -m rlve_jax.gym.envs show Sorting --difficulty 9 --seed 1
  python -m rlve_jax.gym.envs export --collection C16 --difficulties 0-4 --per-level 10 --out c16.parquet \\
      [--prompt-format chat|tinyzero|raw] [--tokenizer DIR]                  # .parquet (pyarrow) or .jsonl
  python -m rlve_jax.gym.envs verify --problems c16.jsonl --responses responses.jsonl [--out scores.jsonl]

Exported rows are the dataset rows TRL and verl read (rlve_jax/gym/integrations.py): the prompt as a
user message and the serialised problem its verifier needs, as JSONL or Parquet (by the --out suffix).
`verify` scores a file of responses with the environments' verifiers in the worker pool (hard time
limits) and prints accuracy and reward per environment and level.
"""

from __future__ import annotations

import argparse
import json
import sys

from rlve_jax.gym import registry


def parse_range(text: str) -> list[int]:
    """'0-4' -> [0, 1, 2, 3, 4]; '2' -> [2]; '0,3,5' -> [0, 3, 5]."""
    levels: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        levels.extend(range(int(lo), int(hi or lo) + 1))
    if not levels or min(levels) < 0:
        raise argparse.ArgumentTypeError(f"bad difficulty range {text!r}")
    return levels


def cmd_list(args) -> None:
    memberships = registry.collections()
    if args.collection:
        wanted = registry.resolve(args.collection)
    else:  # the catalog, then custom environments (no catalog row)
        wanted = tuple(registry.catalog()) + tuple(n for n in registry.names() if n not in registry.catalog())
    print(f"{'name':48s} {'category':22s} {'impl':4s} collections")
    for name in wanted:
        implemented = registry.is_implemented(name)
        if args.implemented and not implemented:
            continue
        category = registry.entry(name).category if implemented or name in registry.catalog() else "unknown"
        member_of = ",".join(c for c, members in memberships.items() if c != "C400" and name in members)
        print(f"{name:48s} {category:22s} {'yes' if implemented else 'no':4s} {member_of}")
    done = sum(registry.is_implemented(n) for n in wanted)
    print(f"\n{done}/{len(wanted)} implemented. Collections: "
          + ", ".join(f"{c} ({sum(registry.is_implemented(n) for n in m)}/{len(m)})" for c, m in memberships.items()))
    for module, error in registry.import_errors().items():
        print(f"not loaded: {module}: {error}", file=sys.stderr)


def cmd_show(args) -> None:
    env = registry.make(args.name)
    top = env.max_difficulty
    if top is not None and not 0 <= args.difficulty <= top:
        raise ValueError(f"{env.name} supports difficulties 0..{top} (its top level within the pool's budgets); "
                         f"got {args.difficulty}")
    problem = env.generate(args.difficulty, args.seed)
    print(f"# {problem.env}  difficulty={problem.difficulty}  seed={problem.seed}  "
          f"pass_threshold={problem.pass_threshold:g}")
    print(f"# parameters: {json.dumps(problem.params)}\n")
    print(problem.prompt)
    print(f"\n# reference answer:\n{env.reference(problem)}")
    if args.data:
        print(f"\n# instance data:\n{json.dumps(problem.data)}")


def cmd_export(args) -> None:
    from rlve_jax.gym import integrations
    from rlve_jax.gym.tokenizer import Tokenizer

    names = registry.resolve(args.collection)
    envs = registry.make_all(names)
    tokenizer = Tokenizer.from_dir(args.tokenizer) if args.tokenizer else None
    rows = []
    for env in envs:
        for d in args.difficulties:
            for _ in range(args.per_level):  # one global seed counter, as in the original
                problem = env.generate(d, args.first_seed + len(rows))
                rows.append(integrations.problem_row(problem, args.prompt_format, tokenizer))
    write_rows(rows, args.out)
    print(f"wrote {len(rows)} problems from {len(envs)} environments ({args.prompt_format} prompts) to {args.out}")


def _pyarrow_parquet():
    try:
        import pyarrow.parquet
    except ImportError as error:
        raise ValueError("Parquet files need pyarrow: pip install 'rlve_jax[parquet]' (or use a .jsonl path)") \
            from error
    return pyarrow.parquet


def write_rows(rows: list[dict], path: str) -> None:
    """Rows as Parquet (a .parquet path: what verl's examples load) or JSON lines (any other path)."""
    if path.endswith(".parquet"):
        import pyarrow

        _pyarrow_parquet().write_table(pyarrow.Table.from_pylist(rows), path)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def read_rows(path: str) -> list[dict]:
    """Rows of a .parquet file or a JSON-lines file."""
    if path.endswith(".parquet"):
        return _pyarrow_parquet().read_table(path).to_pylist()
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def match_responses(problem_count: int, rows: list[dict]) -> list[tuple[int, str]]:
    """(problem index, response text) pairs: each row holds "response" (or a list, "responses") and
    "index" (the problem's line, from 0); without "index", rows follow the problems' order."""
    if not all("index" in r for r in rows) and len(rows) != problem_count:
        raise ValueError(f"{len(rows)} response rows for {problem_count} problems: give each row an \"index\" "
                         "(the problem's line number, from 0) or one row per problem, in order")
    pairs = []
    for line, row in enumerate(rows):
        index = int(row.get("index", line))
        if not 0 <= index < problem_count:
            raise ValueError(f"response row {line}: index {index} is outside the {problem_count} problems")
        texts = row["responses"] if "responses" in row else [row["response"]]
        if not all(isinstance(t, str) for t in texts):
            raise ValueError(f"response row {line}: responses must be strings")
        pairs += [(index, text) for text in texts]
    return pairs


def cmd_verify(args) -> None:
    from rlve_jax.gym import integrations
    from rlve_jax.gym.env import ANSWER_TAGS, BOXED

    parsed = [integrations.row_problem(row) for row in read_rows(args.problems)]
    pairs = match_responses(len(parsed), read_rows(args.responses))
    forced = {"boxed": BOXED, "answer": ANSWER_TAGS}.get(args.markers)
    problems = [parsed[i][0] for i, _ in pairs]
    scorer = integrations.GymScorer(args.workers, args.timeout_s, args.memory_limit_mb)
    try:
        verdicts = scorer.verify(problems, [t for _, t in pairs], [forced or parsed[i][1] for i, _ in pairs])
    finally:
        scorer.close()
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for (index, _), problem, v in zip(pairs, problems, verdicts):
                f.write(json.dumps({"index": index, "env": problem.env, "difficulty": problem.difficulty,
                                    "seed": problem.seed, "reward": v.reward, "accuracy": v.accuracy,
                                    "format_ok": v.format_ok, "reason": v.reason}) + "\n")
    print(format_scores(problems, verdicts))
    if args.out:
        print(f"per-response verdicts: {args.out}")


def format_scores(problems, verdicts) -> str:
    """Accuracy and mean reward per environment and level, then overall."""
    groups: dict[tuple[str, int], list] = {}
    for problem, verdict in zip(problems, verdicts):
        groups.setdefault((problem.env, problem.difficulty), []).append(verdict)
    lines = [f"{'environment':40s} {'level':>5s} {'n':>6s} {'accuracy':>9s} {'reward':>8s} {'format':>7s}"]

    def line(name: str, level: str, vs: list) -> str:
        n = len(vs)
        return (f"{name:40s} {level:>5s} {n:6d} {sum(v.accuracy for v in vs) / n:9.4f} "
                f"{sum(v.reward for v in vs) / n:8.4f} {sum(v.format_ok for v in vs) / n:7.3f}")

    for (env, level), vs in sorted(groups.items()):
        lines.append(line(env, str(level), vs))
    lines.append(line("all", "", list(verdicts)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rlve_jax.gym.envs", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("list", help="environments with category, implementation status and collections")
    p.add_argument("--collection", help="only this collection (C1, C4, C16, C256, C400, HELD_OUT)")
    p.add_argument("--implemented", action="store_true", help="only implemented environments")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("show", help="print one problem with its reference answer and parameters")
    p.add_argument("name")
    p.add_argument("--difficulty", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", action="store_true", help="also print the instance data")
    p.set_defaults(fn=cmd_show)
    p = sub.add_parser("export", help="write a dataset for TRL/verl (user-message prompt + serialised problem)")
    p.add_argument("--collection", required=True, help="collection name or comma-separated identifiers")
    p.add_argument("--difficulties", type=parse_range, default=parse_range("0-4"))
    p.add_argument("--per-level", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--prompt-format", choices=("chat", "tinyzero", "raw"), default="chat",
                   help="the user message's text (every format is one user message; tinyzero and raw rows also "
                        "hold it as prompt_text, for base models): chat: the problem ending in the \\boxed{} "
                        "instruction; tinyzero: the plain User/Assistant text with <answer> tags; raw: the "
                        "environment's text (<answer> tags)")
    p.add_argument("--tokenizer", help="a tokenizer directory: chat rows also get the rendered prompt_text")
    p.add_argument("--out", required=True, help="a .parquet path (needs pyarrow) or a JSON-lines path")
    p.set_defaults(fn=cmd_export)
    p = sub.add_parser("verify", help="score a file of responses; accuracy and reward per environment and level")
    p.add_argument("--problems", required=True, help="rows written by `export` (.parquet or JSON lines; or bare "
                                                     "Problem JSON lines)")
    p.add_argument("--responses", required=True,
                   help='JSONL: {"response": str} or {"responses": [str, ...]}, with "index" (the problem '
                        "line, from 0) or one row per problem in order")
    p.add_argument("--markers", choices=("auto", "boxed", "answer"), default="auto",
                   help="answer markers: auto = the ones each row records (bare problems: <answer>)")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--timeout-s", type=float, default=10.0, help="per-response verifier time limit")
    p.add_argument("--memory-limit-mb", type=int, default=4096)
    p.add_argument("--out", help="write one verdict per response here (JSONL)")
    p.set_defaults(fn=cmd_verify)
    args = parser.parse_args(argv)
    try:
        args.fn(args)
    except KeyError as error:
        parser.exit(2, f"error: {error.args[0]}\n")
    except (ValueError, OverflowError, FileNotFoundError) as error:  # e.g. levels out of range
        parser.exit(2, f"error: {error}\n")


if __name__ == "__main__":
    main()
