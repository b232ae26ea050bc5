"""Bad requests to a live service: each gets a 4xx with a one-line reason, none is counted, and it keeps serving;
connections that never finish a request are closed, and the open connections are bounded."""

import json
import random
import select
import socket
import time

import httpx
import pytest

from serve_for_tests import answer, live_server

TOKEN = "fuzz-token"
MAX_BODY_BYTES = 64 * 1024


def junk(rng: random.Random) -> bytes:
    """Bytes that are not a valid request body: random bytes, truncated JSON, JSON of the wrong shape."""
    choice = rng.randrange(4)
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if choice == 1:
        text = json.dumps({"items": [{"problem_id": 1, "response": "x"}], "n": 2})
        return text[:rng.randrange(1, len(text) - 1)].encode()
    if choice == 2:
        return json.dumps(rng.choice([[], "text", 17, None, [1, 2], True])).encode()
    return b"{" + b'"a":' * rng.randrange(1, 50) + b"}"


def bad_requests(rng: random.Random, known_id: int) -> list[tuple[str, str, dict]]:
    """(method, path, httpx keyword arguments) of requests the service must refuse."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    out = []
    for _ in range(60):  # malformed bodies
        out.append(("POST", rng.choice(["/draw", "/verify", "/step", "/reset"]),
                    {"content": junk(rng), "headers": {**auth, "content-type": "application/json"}}))
    wrong_draws = [{"n": 0}, {"n": -3}, {"n": 10**9}, {"n": "many"}, {"n": 1.5}, {"n": None}, {"n": 1, "env": "X"},
                   {"n": 1, "request_id": ""}, {"n": 1, "request_id": "r" * 300}, {"n": [1]}]
    wrong_verifies = [{}, {"items": []}, {"items": {}}, {"items": [{}]}, {"items": [{"problem_id": known_id}]},
                      {"items": [{"response": "x"}]}, {"items": [{"problem_id": -1, "response": "x"}]},
                      {"items": [{"problem_id": "seven", "response": "x"}]},
                      {"items": [{"problem_id": known_id, "response": 5}]},
                      {"items": [{"problem_id": known_id, "response": "x", "extra": 1}]},
                      {"items": [{"problem_id": known_id, "response": "x"}] * 20_000}]
    for body in wrong_draws * 3:
        out.append(("POST", "/draw", {"json": body, "headers": auth}))
    for body in wrong_verifies * 3:
        out.append(("POST", "/verify", {"json": body, "headers": auth}))
    for _ in range(20):  # problems never handed out
        out.append(("POST", "/verify", {"json": {"items": [{"problem_id": rng.randrange(10**6, 10**9),
                                                             "response": "x"}]}, "headers": auth}))
    for _ in range(15):  # environments not served
        name = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ_%20") for _ in range(rng.randrange(1, 30)))
        out.append(("GET", f"/env/{name}", {"headers": auth}))
    for body in [{"seed": 3}, {"episode_id": "e" * 300}, {"other": 1}] * 3:  # OpenEnv reset/step
        out.append(("POST", "/reset", {"json": body, "headers": auth}))
    for body in [{}, {"action": {}}, {"action": {"response": "x"}}, {"action": {"problem_id": known_id}},
                 {"action": {"problem_id": known_id, "response": "x"}, "timeout_s": 3},
                 {"action": {"problem_id": 2**63, "response": "x"}}] * 3:
        out.append(("POST", "/step", {"json": body, "headers": auth}))
    json_headers = {**auth, "content-type": "application/json"}
    for problem_id in (2**63, 2**70):  # past SQLite's integers
        out.append(("POST", "/verify", {"json": {"items": [{"problem_id": problem_id, "response": "x"}]},
                                        "headers": auth}))
    for body in (b'{"items": [{"problem_id": 1, "response": "\\ud800"}]}',  # a lone surrogate: not storable text
                 b'{"items": [{"problem_id": 1, "response": "x"}], "request_id": "\\udfff"}',
                 b"[" * 30_000 + b"]" * 30_000):  # nested past the JSON parser's recursion limit
        out.append(("POST", "/verify", {"content": body, "headers": json_headers}))
    for _ in range(10):  # oversized, declared and chunked
        out.append(("POST", "/verify", {"content": b"x" * (MAX_BODY_BYTES + 1), "headers": auth}))
        out.append(("POST", "/verify", {"content": iter([b"{" + b" " * MAX_BODY_BYTES, b"}"]), "headers": auth}))
    for _ in range(10):  # no or wrong token
        out.append(("POST", "/draw", {"json": {"n": 1}}))
        out.append(("GET", "/metrics", {"headers": {"Authorization": "Bearer wrong"}}))
    for method, path in [("GET", "/draw"), ("DELETE", "/verify"), ("GET", "/nope"), ("PUT", "/reset"),
                         ("POST", "/health")] * 2:
        out.append((method, path, {"headers": auth}))
    out.append(("POST", "/verify", {"json": {"items": [{"problem_id": known_id, "response": "x"}],
                                             "request_id": "used-by-a-draw"}, "headers": auth}))
    return out


def test_bad_requests_get_one_line_4xx_and_the_service_keeps_serving(tmp_path):
    rng = random.Random(0)
    with live_server(tmp_path, "C4", "--max-body-mb", str(MAX_BODY_BYTES / 2**20), token=TOKEN) as url:
        client = httpx.Client(base_url=url, timeout=60, headers={"Authorization": f"Bearer {TOKEN}"})
        drawn = client.post("/draw", json={"n": 2, "request_id": "used-by-a-draw"}).json()["problems"]
        requests = bad_requests(rng, drawn[0]["problem_id"])
        assert len(requests) >= 240
        statuses = {}
        bare = httpx.Client(base_url=url, timeout=60)
        for method, path, kwargs in requests:
            response = bare.request(method, path, **kwargs)
            assert 400 <= response.status_code < 500, (method, path, response.status_code, response.text[:200])
            detail = response.json()["detail"]
            assert isinstance(detail, str) and "\n" not in detail and 0 < len(detail) <= 400, detail
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert {401, 404, 405, 409, 413, 422} <= set(statuses)
        # WebSocket: bad messages get an error message and the session goes on.
        from websockets.sync.client import connect

        with connect(url.replace("http", "ws") + "/ws", additional_headers={"Authorization": f"Bearer {TOKEN}"}) as ws:
            for message in ["not json", "[]", '{"data": {}}', '{"type": "dance"}', '{"type": "step", "data": {}}',
                            '{"type": "step", "data": {"response": "x"}}', '{"type": "reset", "data": {"seed": 1}}',
                            '{"type": "reset", "data": 7}', b'{"type": "state"}', "[" * 30_000 + "]" * 30_000,
                            json.dumps({"type": "step", "data": {"problem_id": 2**70, "response": "x"}}),
                            '{"type": "step", "data": {"problem_id": 1, "response": "\\ud800"}}'] * 3:
                ws.send(message)
                reply = json.loads(ws.recv())
                assert reply["type"] == "error" and reply["data"]["code"].startswith("HTTP_4"), reply
            ws.send('{"type": "reset"}')
            assert json.loads(ws.recv())["type"] == "observation"
        # Nothing was counted, and good requests still work.
        assert client.get("/health").json()["verdicts"] == 0
        good = client.post("/verify", json={"items": [{"problem_id": p["problem_id"], "response": answer(p, True)}
                                                      for p in drawn]}).json()
        assert [v["accuracy"] for v in good["verdicts"]] == [True, True]
        assert client.get("/health").json()["verdicts"] == 2


def closed(connection: socket.socket) -> bool:
    """Whether the server has closed this connection (end of stream or reset)."""
    if not select.select([connection], [], [], 0)[0]:
        return False
    try:
        return connection.recv(1024) == b""
    except ConnectionResetError:
        return True


def test_unfinished_requests_are_cut_off_and_connections_are_bounded(tmp_path):
    """200 connections that need no token and never finish a request: past --max-connections they are closed at
    once, the rest once --request-timeout-s passes; then the service answers as before."""
    with live_server(tmp_path, "Multiplication", "--request-timeout-s", "1", "--max-connections", "50") as url:
        port = int(url.rsplit(":", 1)[1])
        half_open = []
        for k in range(200):
            connection = socket.create_connection(("127.0.0.1", port))
            if k % 3 == 1:  # headers never finished
                connection.sendall(b"POST /draw HTTP/1.1\r\nHost: x\r\n")
            elif k % 3 == 2:  # a body never finished
                connection.sendall(b"POST /draw HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
            half_open.append(connection)
        time.sleep(0.5)
        assert sum(map(closed, half_open)) >= 150  # the connections past the 50 allowed
        time.sleep(2.0)
        assert all(map(closed, half_open))
        assert httpx.get(f"{url}/health", timeout=10).status_code == 200
        for connection in half_open:
            connection.close()


@pytest.mark.parametrize("flags", [["--max-body-mb", "0"], ["--collection", "C4", "--workers", "0"],
                                   ["--request-timeout-s", "0"], ["--max-connections", "-1"]])
def test_bad_flags_exit_with_one_line(tmp_path, flags):
    import subprocess
    import sys

    from serve_for_tests import REPO

    run = subprocess.run([sys.executable, "-m", "rlve_jax.serve", "--collection", "C4", "--state", str(tmp_path),
                          *flags], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and run.stderr.strip().count("\n") == 0 and "rlve_jax.serve:" in run.stderr
