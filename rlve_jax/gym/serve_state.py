"""The gym service's state on disk: one SQLite database in WAL mode.

Tables:
  meta       the service's settings (collection, scheduler, prompt format) and the scheduler's state_dict
  problems   every problem handed out, by id (its seed: the scheduler's seed counter makes it unique)
  requests   every acknowledged draw/verify request, by the client's request id, with the response sent
  verdicts   the log of applied verdicts, in the order they were applied

A request is acknowledged only after its transaction committed (the verdicts, the scheduler state that
counts them and the response, together), so a kill -9 loses no acknowledged verdict, and a retry with the
same request id finds the stored response instead of counting its verdicts twice. `synchronous=FULL`
also survives a power cut; `NORMAL` survives a killed process only (committed pages sit in the OS cache).
Not thread-safe: the service calls it from one thread.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Sequence

from rlve_jax.gym.env import Problem

DB_NAME = "gym.sqlite"
SYNC_MODES = ("full", "normal")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS problems (id INTEGER PRIMARY KEY, env TEXT NOT NULL, difficulty INTEGER NOT NULL,
                                     problem TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, kind TEXT NOT NULL, response TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verdicts (seq INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL,
                                     problem_id INTEGER NOT NULL, env TEXT NOT NULL, difficulty INTEGER NOT NULL,
                                     reward REAL NOT NULL, accuracy INTEGER NOT NULL, format_ok INTEGER NOT NULL,
                                     reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS verdicts_by_request ON verdicts (request_id);
"""


class LoggedVerdict(NamedTuple):
    """One row of the verdict log."""

    request_id: str
    problem_id: int
    env: str
    difficulty: int
    reward: float
    accuracy: bool
    format_ok: bool
    reason: str


class StateStore:
    """The database of one service state directory."""

    def __init__(self, directory: str | Path, sync: str = "full"):
        if sync not in SYNC_MODES:
            raise ValueError(f"sync must be one of {SYNC_MODES}, got {sync!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT) below.
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={sync.upper()}")
        self.db.executescript(_SCHEMA)

    # -- meta -------------------------------------------------------------------
    def get_meta(self, key: str) -> Any | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self._transaction():
            self._put_meta(key, value)

    def _put_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # -- requests ---------------------------------------------------------------
    def response_of(self, request_id: str) -> dict | None:
        """The stored response of an acknowledged request, or None."""
        row = self.db.execute("SELECT response FROM requests WHERE id = ?", (request_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def commit_draw(self, request_id: str, problems: Sequence[Problem], scheduler_state: dict, response: dict) -> None:
        """The drawn problems, the scheduler state after the draws and the response, in one transaction."""
        with self._transaction():
            self.db.executemany("INSERT OR REPLACE INTO problems (id, env, difficulty, problem) VALUES (?, ?, ?, ?)",
                                [(p.seed, p.env, p.difficulty, p.to_json()) for p in problems])
            self._put_meta("scheduler", scheduler_state)
            self.db.execute("INSERT INTO requests (id, kind, response) VALUES (?, 'draw', ?)",
                            (request_id, json.dumps(response)))

    def commit_verdicts(self, requests: Sequence[tuple[str, Sequence[LoggedVerdict], dict]],
                        scheduler_state: dict) -> None:
        """Several verify requests (request id, verdicts, response), in order, and the scheduler state that counts
        them all, in one transaction (a group commit: one fsync for all)."""
        with self._transaction():
            for request_id, verdicts, response in requests:
                self.db.executemany(
                    "INSERT INTO verdicts (request_id, problem_id, env, difficulty, reward, accuracy, format_ok, "
                    "reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", verdicts)
                self.db.execute("INSERT INTO requests (id, kind, response) VALUES (?, 'verify', ?)",
                                (request_id, json.dumps(response)))
            self._put_meta("scheduler", scheduler_state)

    # -- problems and the log ---------------------------------------------------
    def problem(self, problem_id: int) -> Problem | None:
        row = self.db.execute("SELECT problem FROM problems WHERE id = ?", (problem_id,)).fetchone()
        if row is None:
            return None
        return Problem.from_json(row[0])

    def verdict_log(self) -> Iterator[LoggedVerdict]:
        """Every applied verdict, in the order applied."""
        for row in self.db.execute("SELECT request_id, problem_id, env, difficulty, reward, accuracy, format_ok, "
                                   "reason FROM verdicts ORDER BY seq"):
            yield LoggedVerdict(*row[:5], bool(row[5]), bool(row[6]), row[7])

    def verdict_counts(self) -> dict[tuple[str, str], int]:
        """{(env, reason): verdicts} over the whole log (the metrics' counters after a restart)."""
        return {(env, reason): n for env, reason, n in
                self.db.execute("SELECT env, reason, COUNT(*) FROM verdicts GROUP BY env, reason")}

    def problem_counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT env, COUNT(*) FROM problems GROUP BY env"))

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when the block raises."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "StateStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
