"""kill -9 of the service under load: no acknowledged verdict is lost, retries count once, and the restarted
service holds exactly the state that replaying its verdict log gives."""

import collections
import itertools
import random
import threading
import time

import httpx

from rlve_jax.gym import registry
from rlve_jax.gym.scheduler import Rollout
from rlve_jax.gym.serve_service import SchedulerSettings
from rlve_jax.gym.serve_state import StateStore
from serve_for_tests import answer, kill_group, start_server, stop_server

CLIENTS, ITEMS, DRAWN = 6, 4, 64
FLAGS = ("--min-samples", "12", "--window", "2", "--seed", "5", "--promote-threshold", "0.7")
SETTINGS = SchedulerSettings(min_samples=12, window=2, seed=5, promote_threshold=0.7)


def replayed_state(store: StateStore, names) -> dict:
    """The scheduler state the log implies: the initial draw, then one update per logged request, in order."""
    scheduler = SETTINGS.build(names, {n: e.max_difficulty for n, e in zip(names, registry.make_all(names))})
    for _ in range(DRAWN):
        scheduler.sample()
    for _, rows in itertools.groupby(store.verdict_log(), key=lambda row: row.request_id):
        scheduler.update(Rollout(r.env, r.difficulty, float(r.accuracy)) for r in rows)
    return scheduler.state_dict()


def test_kill_9_under_load_loses_no_acknowledged_verdict(tmp_path):
    state_dir = tmp_path / "state"
    process, url = start_server(state_dir, "C4", *FLAGS)
    try:
        problems = httpx.post(f"{url}/draw", json={"n": DRAWN, "request_id": "draw"}, timeout=120).json()["problems"]
        answers = {(p["problem_id"], ok): answer(p, ok) for p in problems for ok in (True, False)}
        acked, sent = {}, {}
        lock, stop = threading.Lock(), threading.Event()

        def client(index: int) -> None:
            rng = random.Random(index)
            http = httpx.Client(base_url=url, timeout=60)
            for k in itertools.count():
                if stop.is_set():
                    return
                request_id = f"c{index}-{k}"
                chosen = rng.sample(problems, ITEMS)
                body = {"request_id": request_id, "items": [
                    {"problem_id": p["problem_id"], "response": answers[p["problem_id"], rng.random() < 0.8]}
                    for p in chosen]}
                with lock:
                    sent[request_id] = body
                try:
                    response = http.post("/verify", json=body)
                except httpx.TransportError:
                    return  # the server died with this request in flight: not acknowledged
                with lock:
                    acked[request_id] = response.json()

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 120
        while len(acked) < 60 and time.monotonic() < deadline:
            time.sleep(0.05)
        kill_group(process)  # kill -9 the service and its pool workers, mid-load
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        assert len(acked) >= 60
        unacked = {rid: body for rid, body in sent.items() if rid not in acked}
        print(f"kill -9 after {len(acked)} acknowledged verify requests, {len(unacked)} in flight")

        with StateStore(state_dir) as store:
            logged = collections.Counter(row.request_id for row in store.verdict_log())
            assert all(logged[rid] == ITEMS for rid in acked)  # every acknowledged verdict is in the log
            assert set(logged) <= set(sent)
            expected = replayed_state(store, registry.resolve("C4"))
        assert max(expected["upper"].values()) >= 1  # promotions happened under load

        process, url = start_server(state_dir, "C4", *FLAGS)
        http = httpx.Client(base_url=url, timeout=60)
        assert http.get("/scheduler").json() == expected  # the restarted service resumes the logged state
        for rid in acked:  # a retry of an acknowledged request is answered, not counted
            again = http.post("/verify", json=sent[rid]).json()
            assert again["replayed"] and again["verdicts"] == acked[rid]["verdicts"]
        for rid, body in unacked.items():  # the in-flight requests, retried: applied exactly once
            http.post("/verify", json=body)
            http.post("/verify", json=body)
        with StateStore(state_dir) as store:
            logged = collections.Counter(row.request_id for row in store.verdict_log())
            assert all(logged[rid] == ITEMS for rid in sent)
            assert http.get("/scheduler").json() == replayed_state(store, registry.resolve("C4"))
        assert http.get("/health").json()["verdicts"] == ITEMS * len(sent)
    finally:
        stop_server(process)
