"""The gym service's state on disk: one SQLite database in WAL mode.

Tables:
  meta       the service's settings (collection, scheduler, prompt format) and the scheduler's state_dict
  problems   every problem handed out, by id (its seed: the scheduler's seed counter makes it unique)
  requests   every acknowledged draw/verify request, by the client's request id, with the hash of its body
             and the response sent
  verdicts   the log of applied verdicts, in the order they were applied

A request is acknowledged only after its transaction committed (the verdicts, the scheduler state that
counts them and the response, together), so a kill -9 loses no acknowledged verdict, and a retry with the
same request id finds the stored response instead of counting its verdicts twice. `synchronous=FULL`
also survives a power cut; `NORMAL` survives a killed process only (committed pages sit in the OS cache).

Damage is found at start-up, before anything is written: SQLite's integrity check, and a high-water mark
of what was acknowledged (the last verdict's and the last request's row numbers), kept beside the database
in `gym.acknowledged` and rewritten after every commit. SQLite drops a WAL's frames from the first damaged
one on, silently; a database holding less than the mark (a flipped byte in, a truncated or a deleted WAL,
an emptied database) is refused with one line, leaving the files as they are. The mark is not synced: a
power cut can leave it behind the database, never ahead of a database kept with synchronous=FULL.
Not thread-safe: the service calls it from one thread.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterator, NamedTuple, Sequence

from rlve_jax.gym.env import Problem

DB_NAME = "gym.sqlite"
MARK_NAME = "gym.acknowledged"  # the high-water mark of acknowledged requests, beside the database
SYNC_MODES = ("full", "normal")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS problems (id INTEGER PRIMARY KEY, env TEXT NOT NULL, difficulty INTEGER NOT NULL,
                                     problem TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS requests (id TEXT PRIMARY KEY, kind TEXT NOT NULL, response TEXT NOT NULL,
                                     body_hash TEXT);
CREATE TABLE IF NOT EXISTS verdicts (seq INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL,
                                     problem_id INTEGER NOT NULL, env TEXT NOT NULL, difficulty INTEGER NOT NULL,
                                     reward REAL NOT NULL, accuracy INTEGER NOT NULL, format_ok INTEGER NOT NULL,
                                     reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS verdicts_by_request ON verdicts (request_id);
"""


class DamagedState(ValueError):
    """The state directory lost acknowledged requests, or its database is corrupt (one line: the file and a way out)."""


class HighWater(NamedTuple):
    """Row numbers that only grow: the last verdict logged, the last request acknowledged."""

    verdicts: int
    requests: int

    def text(self) -> bytes:
        """Fixed width, so that it is rewritten in place by one write."""
        return f"verdicts {self.verdicts:020d} requests {self.requests:020d}\n".encode()


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


def _high_water(db: sqlite3.Connection) -> HighWater:
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    last = {table: db.execute(f"SELECT COALESCE(MAX({column}), 0) FROM {table}").fetchone()[0] if table in tables
            else 0 for table, column in (("verdicts", "seq"), ("requests", "rowid"))}
    return HighWater(last["verdicts"], last["requests"])


class StateStore:
    """The database of one service state directory."""

    def __init__(self, directory: str | Path, sync: str = "full", accept_state_loss: bool = False):
        """Open (or create) the state in `directory`; DamagedState when it holds less than it acknowledged,
        unless accept_state_loss, which continues from what it holds (and makes that the new mark)."""
        if sync not in SYNC_MODES:
            raise ValueError(f"sync must be one of {SYNC_MODES}, got {sync!r}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / DB_NAME
        self.mark_path = self.directory / MARK_NAME
        mark = self._check(accept_state_loss)
        # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE ... COMMIT) below.
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={sync.upper()}")
        self.db.executescript(_SCHEMA)
        if "body_hash" not in {row[1] for row in self.db.execute("PRAGMA table_info(requests)")}:
            self.db.execute("ALTER TABLE requests ADD COLUMN body_hash TEXT")  # a state made before bodies were hashed
        self._mark_fd = os.open(self.mark_path, os.O_RDWR | os.O_CREAT, 0o644)
        if mark is None or accept_state_loss:
            self._write_mark()

    def _check(self, accept_state_loss: bool) -> HighWater | None:
        """The stored mark (None for a new state, or one made before marks were kept), after checking that the
        database passes SQLite's integrity check and holds everything the mark says was acknowledged."""
        try:
            text = self.mark_path.read_text()
            mark = HighWater(*map(int, text.split()[1::2])) if text else None  # empty: killed as it was made
        except FileNotFoundError:
            mark = None
        except (ValueError, TypeError):
            raise DamagedState(f"{self.mark_path} is unreadable: restore {self.directory} from a backup, or pass "
                               "--accept-state-loss to continue from what gym.sqlite holds") from None
        held, empty = HighWater(0, 0), not self.path.exists() or self.path.stat().st_size == 0
        if not empty:
            try:  # read-only: a refused state stays as found (closing a writer would checkpoint its WAL away)
                with contextlib.closing(sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True)) as db:
                    integrity = db.execute("PRAGMA quick_check").fetchone()[0]
                    held = _high_water(db)
            except sqlite3.DatabaseError as error:
                integrity = str(error)
            if integrity != "ok":
                raise DamagedState(f"{self.path} fails SQLite's integrity check ({' '.join(integrity.split())[:200]}): "
                                   f"restore {self.directory} from a backup (sqlite3's .recover salvages rows)")
        lost = mark is not None and (held.verdicts < mark.verdicts or held.requests < mark.requests)
        if lost and not accept_state_loss:
            why = "it is empty or missing" if empty else "its -wal file damaged, truncated or deleted?"
            raise DamagedState(
                f"{self.path} holds {held.verdicts} of the {mark.verdicts} acknowledged verdicts and {held.requests} "
                f"of the {mark.requests} acknowledged requests ({why}): restore {self.directory} from a backup, "
                "or pass --accept-state-loss to continue from what it holds")
        return mark

    def _write_mark(self) -> None:
        """After a commit: a mark that failed to be written lags the database (a weaker check at the next start),
        never leads it, and must not turn an acknowledged commit into an error."""
        with contextlib.suppress(OSError):
            os.pwrite(self._mark_fd, _high_water(self.db).text(), 0)

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
    def request(self, request_id: str) -> tuple[dict, str | None] | None:
        """(the stored response, the hash of the body) of an acknowledged request, or None. The hash is None for
        requests stored before bodies were hashed."""
        row = self.db.execute("SELECT response, body_hash FROM requests WHERE id = ?", (request_id,)).fetchone()
        return None if row is None else (json.loads(row[0]), row[1])

    def commit_draw(self, request_id: str, body_hash: str, problems: Sequence[Problem], scheduler_state: dict,
                    response: dict) -> None:
        """The drawn problems, the scheduler state after the draws and the response, in one transaction."""
        with self._transaction():
            self.db.executemany("INSERT OR REPLACE INTO problems (id, env, difficulty, problem) VALUES (?, ?, ?, ?)",
                                [(p.seed, p.env, p.difficulty, p.to_json()) for p in problems])
            self._put_meta("scheduler", scheduler_state)
            self.db.execute("INSERT INTO requests (id, kind, response, body_hash) VALUES (?, 'draw', ?, ?)",
                            (request_id, json.dumps(response), body_hash))
        self._write_mark()

    def commit_verdicts(self, requests: Sequence[tuple[str, str, Sequence[LoggedVerdict], dict]],
                        scheduler_state: dict) -> None:
        """Several verify requests (request id, body hash, verdicts, response), in order, and the scheduler state
        that counts them all, in one transaction (a group commit: one fsync for all)."""
        with self._transaction():
            for request_id, body_hash, verdicts, response in requests:
                self.db.executemany(
                    "INSERT INTO verdicts (request_id, problem_id, env, difficulty, reward, accuracy, format_ok, "
                    "reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", verdicts)
                self.db.execute("INSERT INTO requests (id, kind, response, body_hash) VALUES (?, 'verify', ?, ?)",
                                (request_id, json.dumps(response), body_hash))
            self._put_meta("scheduler", scheduler_state)
        self._write_mark()

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
        os.close(self._mark_fd)

    def __enter__(self) -> "StateStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
