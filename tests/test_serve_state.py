"""The service's state on disk: damage (a flipped byte in the WAL, a truncated or deleted WAL, an emptied
database) is found at start-up and refused with one line naming the file and a way out, leaving the files as
found; --accept-state-loss continues from what is left; an undamaged state after a kill -9 opens as it was."""

import shutil
import subprocess
import sys

import pytest

from rlve_jax.gym.env import Problem
from rlve_jax.gym.serve_state import DB_NAME, MARK_NAME, DamagedState, LoggedVerdict, StateStore
from serve_for_tests import REPO

REQUESTS, ITEMS = 12, 5


def acknowledged_state(directory):
    """A store with 60 acknowledged verdicts, and a copy of its files taken while it is open (what a kill -9
    leaves: the committed transactions sit in the WAL, not yet in the database file)."""
    store = StateStore(directory / "live")
    store.commit_draw("draw", "h-draw", [Problem("Sorting", 0, seed, "p", {}, {}) for seed in range(ITEMS)],
                      {"seed": 0}, {"kind": "draw", "ids": list(range(ITEMS)), "failed": []})
    for k in range(REQUESTS):
        verdicts = [LoggedVerdict(f"v{k}", i, "Sorting", 0, 1.0, True, True, "correct") for i in range(ITEMS)]
        store.commit_verdicts([(f"v{k}", f"h{k}", verdicts, {"kind": "verify", "response": {}})], {"seed": k})
    killed = directory / "killed"
    shutil.copytree(directory / "live", killed)
    store.close()
    assert (killed / f"{DB_NAME}-wal").stat().st_size > 0
    return killed


def flip_a_byte(state):
    wal = state / f"{DB_NAME}-wal"
    data = bytearray(wal.read_bytes())
    data[len(data) // 2] ^= 0xFF
    wal.write_bytes(bytes(data))


def truncate(state):
    wal = state / f"{DB_NAME}-wal"
    wal.write_bytes(wal.read_bytes()[:wal.stat().st_size // 2])


def delete(state):
    (state / f"{DB_NAME}-wal").unlink()


def empty(state):
    for path in state.glob(f"{DB_NAME}*"):
        path.unlink()
    (state / DB_NAME).write_bytes(b"")


@pytest.mark.parametrize("damage", [flip_a_byte, truncate, delete, empty])
def test_damaged_state_is_refused_with_one_line_and_left_as_found(tmp_path, damage):
    state = acknowledged_state(tmp_path)
    damage(state)
    files = lambda: {p.name: p.read_bytes() for p in state.iterdir() if not p.name.endswith("-shm")}  # noqa: E731
    before = files()  # the -shm file is an index SQLite rebuilds from the WAL, not data
    with pytest.raises(DamagedState) as refused:
        StateStore(state)
    message = str(refused.value)
    assert "\n" not in message and str(state / DB_NAME) in message and "--accept-state-loss" in message, message
    assert f"of the {REQUESTS * ITEMS} acknowledged verdicts" in message, message
    after = files()
    assert {name: after.get(name) for name in before} == before  # nothing checkpointed away: a recovery has it all


def test_accepting_the_loss_continues_from_what_is_left(tmp_path):
    state = acknowledged_state(tmp_path)
    truncate(state)
    with StateStore(state, accept_state_loss=True) as store:
        kept = len(list(store.verdict_log()))
        assert 0 < kept < REQUESTS * ITEMS
        store.commit_verdicts([("after", "h", [LoggedVerdict("after", 0, "Sorting", 0, 0.0, False, True, "wrong")],
                                {"kind": "verify", "response": {}})], {"seed": 99})
    with StateStore(state) as store:  # the mark now follows what was kept: no refusal
        assert len(list(store.verdict_log())) == kept + 1
        assert store.get_meta("scheduler") == {"seed": 99}


def test_a_killed_but_undamaged_state_opens_whole(tmp_path):
    state = acknowledged_state(tmp_path)
    with StateStore(state) as store:
        assert len(list(store.verdict_log())) == REQUESTS * ITEMS
        assert store.request("v3") == ({"kind": "verify", "response": {}}, "h3")
    assert (state / MARK_NAME).read_text().split() == ["verdicts", f"{REQUESTS * ITEMS:020d}", "requests",
                                                       f"{REQUESTS + 1:020d}"]


def test_the_service_refuses_a_damaged_state_in_one_line(tmp_path):
    state = acknowledged_state(tmp_path)
    delete(state)
    run = subprocess.run([sys.executable, "-m", "rlve_jax.serve", "--collection", "Sorting", "--state", str(state)],
                         cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and run.stderr.strip().count("\n") == 0, run.stderr
    assert f"rlve_jax.serve: {state / DB_NAME} holds 0 of the {REQUESTS * ITEMS}" in run.stderr, run.stderr
