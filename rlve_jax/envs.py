"""Command line for the gym: list environments, show a problem, export a static dataset.

  python -m rlve_jax.envs list [--collection C16] [--implemented]
  python -m rlve_jax.envs show Sorting --difficulty 9 --seed 1
  python -m rlve_jax.envs export --collection C16 --difficulties 0-4 --per-level 10 --out c16.jsonl
"""

from __future__ import annotations

import argparse
import json

from rlve_jax import registry


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
    wanted = registry.resolve(args.collection) if args.collection else tuple(registry.catalog())
    print(f"{'name':48s} {'category':22s} {'impl':4s} collections")
    for name in wanted:
        entry = registry.catalog()[name]
        implemented = registry.is_implemented(name)
        if args.implemented and not implemented:
            continue
        member_of = ",".join(c for c, members in memberships.items() if c != "C400" and name in members)
        print(f"{name:48s} {entry.category:22s} {'yes' if implemented else 'no':4s} {member_of}")
    done = sum(registry.is_implemented(n) for n in wanted)
    print(f"\n{done}/{len(wanted)} implemented. Collections: "
          + ", ".join(f"{c} ({sum(registry.is_implemented(n) for n in m)}/{len(m)})" for c, m in memberships.items()))


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
    names = registry.resolve(args.collection)
    envs = registry.make_all(names)
    count = 0
    with open(args.out, "w", encoding="utf-8") as f:
        for env in envs:
            for d in args.difficulties:
                for _ in range(args.per_level):  # one global seed counter, as in the original
                    f.write(env.generate(d, args.first_seed + count).to_json() + "\n")
                    count += 1
    print(f"wrote {count} problems from {len(envs)} environments to {args.out}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m rlve_jax.envs", description=__doc__,
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
    p = sub.add_parser("export", help="write a static JSONL dataset of problems")
    p.add_argument("--collection", required=True, help="collection name or comma-separated identifiers")
    p.add_argument("--difficulties", type=parse_range, default=parse_range("0-4"))
    p.add_argument("--per-level", type=int, default=10)
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=cmd_export)
    args = parser.parse_args(argv)
    try:
        args.fn(args)
    except (KeyError, ValueError, OverflowError) as error:  # unknown names, levels out of range
        parser.exit(2, f"error: {error.args[0] if error.args else error}\n")


if __name__ == "__main__":
    main()
