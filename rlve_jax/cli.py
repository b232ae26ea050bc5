"""The command line shared by the entry points (rlve_jax.main, rlve_jax.plan): the --config,
--workdir and --verbose flags, flag parsing that names unknown config keys with suggestions, and
input errors printed as one line.
"""

from __future__ import annotations

import sys

from absl import app, flags
from ml_collections import config_flags

CONFIG = config_flags.DEFINE_config_file("config", None, "path to a config file in configs/", lock_config=True)
WORKDIR = flags.DEFINE_string("workdir", None, "run directory (checkpoints, metrics, plots); "
                                               "default: runs/<config file name>")
VERBOSE = flags.DEFINE_bool("verbose", False, "print the full traceback of config and input errors")

# Errors that describe bad input (config values, paths, environment names): the message is the whole story.
INPUT_ERRORS = (ValueError, KeyError, FileNotFoundError, NotADirectoryError, app.UsageError)


def one_line(error: BaseException) -> str:
    """The message of an input error on one line (KeyError's str() would quote it)."""
    text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    return " ".join(str(text).split()) or type(error).__name__


def exit_on_input_error(error: BaseException, verbose: bool, input_errors: tuple = INPUT_ERRORS) -> None:
    """An input error (and not --verbose): print it as one line on stderr and exit with status 2.
    Returns for any other error (the caller re-raises it)."""
    if isinstance(error, input_errors) and not verbose:
        print(f"error: {one_line(error)}  (--verbose for the traceback)", file=sys.stderr)
        sys.exit(2)


def unknown_overrides(argv: list[str]) -> list[str]:
    """`--config.a.b=v` arguments whose key is not in the config file's tree, with suggestions."""
    import difflib

    from rlve_jax.defaults import load_config_file

    path = next((a.split("=", 1)[1] for a in argv if a.startswith("--config=")), None)
    if path is None:
        return []
    known = set(flatten_keys(load_config_file(*path.split(":", 1))))
    problems = []
    for arg in argv:
        if arg.startswith("--config.") and "=" in arg:
            key = arg[len("--config."):].split("=", 1)[0]
            if key not in known:
                close = difflib.get_close_matches(key, known, n=3)
                problems.append(f"--config.{key}" + (f" (did you mean {', '.join(close)}?)" if close else ""))
    return problems


def flatten_keys(config, prefix: str = "") -> list[str]:
    keys = []
    for name, value in config.items():
        keys.append(prefix + name)
        if hasattr(value, "items"):
            keys += flatten_keys(value, f"{prefix}{name}.")
    return keys


def parse_flags(argv: list[str]) -> list[str]:
    """absl flag parsing, with a readable error for unknown config keys."""
    try:
        return flags.FLAGS(argv)
    except (AttributeError, KeyError, flags.Error) as error:
        unknown = unknown_overrides(argv)
        if unknown:
            raise SystemExit("error: unknown config keys: " + "; ".join(unknown)
                             + "\n(every key is listed in rlve_jax/defaults.py)") from None
        raise SystemExit(f"error: {error}") from None
