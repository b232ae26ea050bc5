"""The adaptive gym as an HTTP service: RLVE's curriculum for any trainer (FastAPI + uvicorn, JAX-free).

    python -m rlve_jax.serve --collection C256 --state runs/gym    # or python -m rlve_jax.gym.serve
    python -m rlve_jax.serve --collection C256 --state runs/gym_ts --scheduler thompson   # another curriculum

Endpoints (docs/serve.md has the details and client examples):
  OpenEnv   POST /reset, POST /step, GET /state, GET /schema, GET /metadata, WS /ws  (openenv-core's wire format:
            its GenericEnvClient talks to /ws as it talks to any OpenEnv server)
  batch     POST /draw {"n", "request_id"}, POST /verify {"items": [{"problem_id", "response"}], "request_id"}
  service   GET /health (no auth), GET /metrics (Prometheus text), GET /scheduler (the scheduler's state_dict),
            GET /env/{name} (one environment's curriculum state: its level, window and counts for adaptive)

Every 4xx carries a one-line `detail`; a bad WebSocket message gets an error message and the session goes
on. With a token (RLVE_SERVE_TOKEN or --token-file) every endpoint but /health needs
`Authorization: Bearer <token>`. Request bodies (and WebSocket messages) are bounded by --max-body-mb, the
time a client may take to send a request by --request-timeout-s, open connections by --max-connections.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import hmac
import json
import logging
import os
import resource
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, Optional

import uvicorn
from fastapi import Depends, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from rlve_jax.gym.integrations import PROMPT_FORMATS
from rlve_jax.gym.scheduler import KINDS
from rlve_jax.gym.serve_service import GymService, RequestConflict, SchedulerSettings, UnknownProblem
from rlve_jax.gym.serve_state import SYNC_MODES

log = logging.getLogger(__name__)

MAX_DRAW = 4096  # problems per draw request
MAX_ITEMS = 16_384  # responses per verify request
MAX_RESPONSE_CHARS = 1_000_000  # one response (the verifier reads at most env.MAX_ANSWER_CHARS of its answer)
MAX_ID_CHARS = 255  # request and episode ids (OpenEnv's limit)
MAX_PROBLEM_ID = 2**63 - 1  # problem ids are SQLite integers
DEFAULT_MAX_BODY_MB = 64.0
DEFAULT_REQUEST_TIMEOUT_S = 10.0  # to send a whole request (headers and body)
DEFAULT_MAX_CONNECTIONS = 1024  # HTTP and WebSocket connections open at once
SPARE_FILES = 256  # open files beyond the connections: the pool's pipes, the database, the log
TOKEN_ENV = "RLVE_SERVE_TOKEN"


# ---------------------------------------------------------------------------
# Request and response bodies


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _unicode(text: str) -> str:
    """JSON can carry a lone surrogate ("\\ud800"), which no UTF-8 file or database can store."""
    try:
        text.encode()
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode text (it holds a lone surrogate)") from None
    return text


Text = Annotated[str, AfterValidator(_unicode)]
ProblemId = Annotated[int, Field(ge=0, le=MAX_PROBLEM_ID, description="The id a draw or reset handed out")]


class DrawRequest(_Strict):
    n: int = Field(1, ge=1, le=MAX_DRAW, description="How many problems to draw from the scheduler")
    request_id: Optional[Text] = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                                       description="Idempotency key: a retry returns the same problems")


class VerifyItem(_Strict):
    problem_id: ProblemId
    response: Text = Field(max_length=MAX_RESPONSE_CHARS, description="The model's output text")


class VerifyRequest(_Strict):
    items: list[VerifyItem] = Field(min_length=1, max_length=MAX_ITEMS)
    request_id: Optional[Text] = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                                       description="Idempotency key: a retry is answered, never counted twice")


class StepAction(_Strict):
    """The action of an OpenEnv step: the response to a problem (the WebSocket session's own by default)."""

    response: Text = Field(max_length=MAX_RESPONSE_CHARS, description="The model's output text")
    problem_id: Optional[int] = Field(None, ge=0, le=MAX_PROBLEM_ID, description="Required over HTTP; a session "
                                      "defaults to its last reset's problem")
    request_id: Optional[Text] = Field(None, min_length=1, max_length=MAX_ID_CHARS)


class ResetBody(_Strict):
    """OpenEnv's ResetRequest; the seed is the scheduler's, so a client may not choose one."""

    seed: Optional[int] = Field(None, description="Not accepted: problems and seeds come from the scheduler")
    episode_id: Optional[Text] = Field(None, max_length=MAX_ID_CHARS)
    request_id: Optional[Text] = Field(None, min_length=1, max_length=MAX_ID_CHARS)


class StepBody(_Strict):
    """OpenEnv's StepRequest (its timeout is the pool's, so timeout_s is not accepted)."""

    action: StepAction
    request_id: Optional[Text] = Field(None, min_length=1, max_length=MAX_ID_CHARS)


class ProblemObservation(BaseModel):
    problem_id: int
    env: str
    difficulty: int
    seed: int
    prompt: Any = Field(description="The wrapped prompt: chat messages ('chat') or text ('tinyzero', 'raw')")
    answer_markers: list[str]


class VerdictObservation(BaseModel):
    problem_id: int
    env: str
    difficulty: int
    reward: float
    accuracy: bool
    format_ok: bool
    reason: str
    request_id: str
    replayed: bool
    promoted: dict[str, int]


class GymState(BaseModel):
    """OpenEnv's State (episode_id, step_count) and the service's own fields."""

    model_config = ConfigDict(extra="allow")
    episode_id: Optional[str] = None
    step_count: int = 0


class ClientError(Exception):
    """A request the service refuses: an HTTP status and a one-line reason."""

    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


def one_line(error: ValidationError | RequestValidationError) -> str:
    """The first validation error as `where: what` (and how many more)."""
    errors = error.errors()
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body") or "body"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}".replace("\n", " ")


# ---------------------------------------------------------------------------
# Request size limit (a pure ASGI middleware: it counts bytes as they arrive, chunked bodies too)


class BodyLimit:
    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            return await _plain_error(send, 413, f"request body over the limit of {self.max_bytes} bytes")
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise ClientError(413, f"request body over the limit of {self.max_bytes} bytes")
            return message

        return await self.app(scope, counted, send)


async def _plain_error(send, status: int, detail: str) -> None:
    body = JSONResponse({"detail": detail}).body
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# ---------------------------------------------------------------------------
# The app


def create_app(service: GymService, token: str | None = None,
               max_body_bytes: int = int(DEFAULT_MAX_BODY_MB * 2**20)) -> FastAPI:
    """The FastAPI app serving `service` (which it closes on shutdown)."""

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        service.close()

    app = FastAPI(title="RLVE adaptive gym", lifespan=lifespan,
                  description="RLVE's adaptive verifiable environments over HTTP (OpenEnv-compatible)")
    app.add_middleware(BodyLimit, max_bytes=max_body_bytes)

    def authorized(header: str | None) -> bool:
        return token is None or hmac.compare_digest((header or "").encode(), f"Bearer {token}".encode())

    async def require_token(request: Request) -> None:
        if not authorized(request.headers.get("authorization")):
            raise ClientError(401, "missing or wrong bearer token (Authorization: Bearer <token>)")

    @app.exception_handler(ClientError)
    async def client_error(request, error: ClientError):
        return JSONResponse({"detail": error.detail}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request, error: RequestValidationError):
        return JSONResponse({"detail": one_line(error)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request, error: StarletteHTTPException):
        return JSONResponse({"detail": str(error.detail).splitlines()[0]}, status_code=error.status_code)

    @app.exception_handler(Exception)
    async def internal_error(request, error: Exception):
        log.exception("internal error on %s", request.url.path)
        return JSONResponse({"detail": f"internal error: {type(error).__name__}"}, status_code=500)

    guarded = [Depends(require_token)]

    async def call(operation, *args) -> dict:
        """Run a service operation, turning its refusals into 4xx."""
        try:
            return await operation(*args)
        except UnknownProblem as error:
            raise ClientError(404, error.args[0]) from None
        except RequestConflict as error:
            raise ClientError(409, str(error)) from None

    async def reset_problem(request_id: str | None) -> dict:
        """One problem from the scheduler (draws again, up to 8 times, when generation fails)."""
        for attempt in range(8):
            drawn = await call(service.draw, 1, f"{request_id}/{attempt}" if request_id else None)
            if drawn["problems"]:
                return drawn["problems"][0]
        raise ClientError(503, "8 draws in a row failed to generate a problem (see the server log)")

    async def step_result(action: StepAction, request_id: str | None, default_problem: int | None) -> dict:
        problem_id = action.problem_id if action.problem_id is not None else default_problem
        if problem_id is None:
            raise ClientError(422, "action.problem_id: required (the problem_id that reset returned)")
        result = await call(service.verify, [(problem_id, action.response)], action.request_id or request_id)
        verdict = result["verdicts"][0]
        observation = {**verdict, "request_id": result["request_id"], "replayed": result["replayed"],
                       "promoted": result["promoted"]}
        return {"observation": observation, "reward": verdict["reward"], "done": True}

    def check_reset(body: ResetBody) -> None:
        if body.seed is not None:
            raise ClientError(422, "seed: not accepted; problems and their seeds come from the scheduler")

    # -- OpenEnv over HTTP (stateless: the step names its problem) -------------------------------------------
    @app.post("/reset", dependencies=guarded)
    async def reset(body: ResetBody = ResetBody()) -> JSONResponse:
        check_reset(body)
        return JSONResponse({"observation": await reset_problem(body.request_id), "reward": None, "done": False})

    @app.post("/step", dependencies=guarded)
    async def step(body: StepBody) -> JSONResponse:
        return JSONResponse(await step_result(body.action, body.request_id, None))

    @app.get("/state", dependencies=guarded)
    async def state() -> dict:
        summary = service.summary()
        return GymState(step_count=summary["verdicts"], **summary).model_dump()

    @app.get("/schema", dependencies=guarded)
    async def schema() -> dict:
        return {"action": StepAction.model_json_schema(), "state": GymState.model_json_schema(),
                "observation": TypeAdapter(ProblemObservation | VerdictObservation).json_schema()}  # reset | step

    @app.get("/metadata", dependencies=guarded)
    async def metadata() -> dict:
        return {"name": f"rlve-{service.collection}", "version": "0.1.0", "author": "rlve_jax",
                "description": f"RLVE adaptive gym: {len(service.env_names)} verifiable environments "
                               f"({service.collection}) whose difficulty follows the policy"}

    # -- batch ----------------------------------------------------------------------------------------------
    @app.post("/draw", dependencies=guarded)
    async def draw(body: DrawRequest) -> JSONResponse:  # plain JSON answers: no response-model pass
        return JSONResponse(await call(service.draw, body.n, body.request_id))

    @app.post("/verify", dependencies=guarded)
    async def verify(body: VerifyRequest) -> JSONResponse:
        items = [(item.problem_id, item.response) for item in body.items]
        return JSONResponse(await call(service.verify, items, body.request_id))

    # -- service --------------------------------------------------------------------------------------------
    @app.get("/health")
    async def health() -> dict:
        return {"status": "healthy", **service.summary()}

    @app.get("/metrics", dependencies=guarded)
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(generate_latest(service.metrics_registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/scheduler", dependencies=guarded)
    async def scheduler() -> dict:
        return await service.scheduler_state()

    @app.get("/env/{name}", dependencies=guarded)
    async def env_state(name: str) -> dict:
        try:
            return await service.env_state(name)
        except KeyError:
            raise ClientError(404, f"unknown environment {name[:100]!r}: not in this service's collection "
                                   f"{service.collection}") from None

    # -- OpenEnv over a WebSocket (openenv-core's EnvClient): a session remembers its problem -----------------
    @app.websocket("/ws")
    async def session(websocket: WebSocket) -> None:
        if not authorized(websocket.headers.get("authorization")):
            await websocket.close(code=1008, reason="missing or wrong bearer token")
            return
        await websocket.accept()
        try:
            await serve_session(websocket)
        except WebSocketDisconnect:
            return
        except Exception as error:  # noqa: BLE001 - the session ends with a code and a reason, never silently
            log.exception("internal error on /ws")
            with contextlib.suppress(Exception):  # the peer may be gone already
                await websocket.close(code=1011, reason=f"internal error: {type(error).__name__}")

    async def serve_session(websocket: WebSocket) -> None:
        state = GymState()
        problem_id: int | None = None
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                return
            try:
                message = _ws_message(received.get("text"), max_body_bytes)
                kind, data = message["type"], message.get("data") or {}
                if kind == "close":
                    await websocket.close()
                    return
                if kind == "reset":
                    body = _parsed(ResetBody, data, "data")
                    check_reset(body)
                    observation = await reset_problem(body.request_id)
                    problem_id = observation["problem_id"]
                    state = GymState(episode_id=body.episode_id or uuid.uuid4().hex, problem_id=problem_id)
                    reply = {"type": "observation", "data": {"observation": observation, "reward": None,
                                                             "done": False}}
                elif kind == "step":
                    action = _parsed(StepAction, data, "data")
                    reply = {"type": "observation", "data": await step_result(action, None, problem_id)}
                    state.step_count += 1
                elif kind == "state":
                    reply = {"type": "state", "data": state.model_dump()}
                else:
                    raise ClientError(400, f"type: unknown message type {str(kind)[:40]!r} (reset, step, state, "
                                           f"close)")
            except ClientError as error:
                reply = {"type": "error", "data": {"message": error.detail, "code": f"HTTP_{error.status}"}}
            await websocket.send_json(reply)

    return app


def _ws_message(raw: str | None, max_bytes: int) -> dict:
    """A WebSocket text message as a dict with a `type`, or a ClientError saying why not."""
    if raw is None:
        raise ClientError(400, "binary frames are not accepted: send JSON text messages")
    if len(raw) > max_bytes:
        raise ClientError(413, f"message over the limit of {max_bytes} bytes")
    try:
        message = json.loads(raw)
    except ValueError as error:
        raise ClientError(400, f"invalid JSON: {error}") from None
    except RecursionError:
        raise ClientError(400, "invalid JSON: nested too deeply") from None
    if not isinstance(message, dict) or "type" not in message:
        raise ClientError(400, "a message is a JSON object with a 'type' (reset, step, state, close)")
    if not isinstance(message.get("data") or {}, dict):
        raise ClientError(400, "data: must be a JSON object")
    return message


def _parsed(model: type[BaseModel], data: dict, where: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise ClientError(422, f"{where}.{one_line(error)}") from None


# ---------------------------------------------------------------------------
# Connections: what uvicorn leaves unbounded


def guarded_http(request_timeout_s: float, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with two bounds it lacks: a request (headers and body) must arrive within
    request_timeout_s of the connection opening or of the previous response, so a client that sends nothing,
    or its headers a byte at a time, is cut off (idle keep-alive connections close sooner, at uvicorn's
    timeout_keep_alive); and a connection past max_connections open ones (HTTP and WebSocket) is closed at once.
    A connection upgraded to a WebSocket is no longer timed (its pings find dead peers)."""

    class GuardedHTTP(AutoHTTPProtocol):
        def connection_made(self, transport) -> None:
            super().connection_made(transport)
            self._deadline = None
            if len(self.connections) > max_connections:
                transport.close()
            else:
                self._await_request()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._await_request()

        def connection_lost(self, exc) -> None:
            self._stop_deadline()
            super().connection_lost(exc)

        def _await_request(self) -> None:
            self._stop_deadline()
            self._deadline = self.loop.call_later(request_timeout_s, self._request_due, self.cycle)

        def _stop_deadline(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()

        def _request_due(self, previous) -> None:
            if self.transport.is_closing() or self.transport.get_protocol() is not self:  # closed, or a WebSocket
                return
            if self.cycle is not previous and not self.cycle.more_body:  # the next request arrived whole
                return
            self.transport.close()

    return GuardedHTTP


def allow_open_files(max_connections: int) -> None:
    """Raise this process's open-file limit to what max_connections needs (up to the hard limit), or refuse."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = max_connections + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise ValueError(f"--max-connections {max_connections} needs {needed} open files, but the hard limit is "
                             f"{hard}: raise it (ulimit -Hn) or lower --max-connections")
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


# ---------------------------------------------------------------------------
# Command line


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    d = SchedulerSettings()
    parser = argparse.ArgumentParser(prog="python -m rlve_jax.serve", description=__doc__.split("\n")[0])
    parser.add_argument("--collection", required=True, help="C1, C4, C16, C256, C400 or comma-separated names")
    parser.add_argument("--state", required=True, type=Path, help="state directory (resumed when it exists)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--prompt-format", default="chat", choices=PROMPT_FORMATS)
    parser.add_argument("--workers", type=int, default=4, help="verifier/generator processes")
    parser.add_argument("--timeout-s", type=float, default=10.0, help="per-item wall-clock limit")
    parser.add_argument("--memory-limit-mb", type=int, default=4096, help="per-worker address space (0: none)")
    parser.add_argument("--scheduler", default=d.kind, choices=KINDS, help="the curriculum (README \"Curricula\")")
    parser.add_argument("--initial-difficulty", type=int, default=d.initial_difficulty)
    parser.add_argument("--window", type=int, default=d.window)
    parser.add_argument("--promote-threshold", type=float, default=d.promote_threshold)
    parser.add_argument("--min-samples", type=int, default=d.min_samples,
                        help="verdicts at h before a promotion check (the trainer's min_prompts * G)")
    parser.add_argument("--static-lo", type=int, default=d.static_lo)
    parser.add_argument("--static-hi", type=int, default=d.static_hi)
    parser.add_argument("--max-level", type=int, default=d.max_level,
                        help="learnability, thompson: levels 0..min(top level, this) are the cells")
    parser.add_argument("--decay", type=float, default=d.decay,
                        help="learnability, thompson: evidence kept per verify request (per training step)")
    parser.add_argument("--prior-count", type=float, default=d.prior_count,
                        help="learnability, thompson: pseudo-observations at even odds per cell")
    parser.add_argument("--explore", type=float, default=d.explore,
                        help="learnability: the share of draws spread evenly over an environment's cells")
    parser.add_argument("--seed", type=int, default=d.seed, help="the scheduler's seed (the training config's)")
    parser.add_argument("--sync", default="full", choices=SYNC_MODES,
                        help="SQLite synchronous mode: full survives power loss, normal a killed process")
    parser.add_argument("--max-body-mb", type=float, default=DEFAULT_MAX_BODY_MB)
    parser.add_argument("--request-timeout-s", type=float, default=DEFAULT_REQUEST_TIMEOUT_S,
                        help="a client's time to send a whole request (headers and body), from its connection or "
                             "the previous response; slower connections are closed")
    parser.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS,
                        help="HTTP and WebSocket connections open at once; one more is closed at once")
    parser.add_argument("--accept-state-loss", action="store_true",
                        help="start from a --state that holds less than it acknowledged (a damaged or lost WAL), "
                             "continuing from what it holds; without it such a state is refused")
    parser.add_argument("--token-file", type=Path, help=f"bearer token file (or set {TOKEN_ENV})")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    return parser.parse_args(argv)


def scheduler_settings(args: argparse.Namespace) -> SchedulerSettings:
    """The scheduler's settings from the flags: each field's flag is its name (--scheduler for the kind)."""
    return SchedulerSettings(**{field.name: getattr(args, "scheduler" if field.name == "kind" else field.name)
                                for field in dataclasses.fields(SchedulerSettings)})


def read_token(token_file: Path | None) -> str | None:
    """The bearer token from --token-file or the environment; None means no auth."""
    token = token_file.read_text().strip() if token_file else os.environ.get(TOKEN_ENV, "").strip()
    if token_file and not token:
        raise ValueError(f"--token-file {token_file} is empty")
    return token or None


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        for flag, value in (("--max-body-mb", args.max_body_mb), ("--request-timeout-s", args.request_timeout_s),
                            ("--max-connections", args.max_connections)):
            if value <= 0:
                raise ValueError(f"{flag} must be > 0, got {value}")
        allow_open_files(args.max_connections)
        token = read_token(args.token_file)
        service = GymService(args.state, args.collection, scheduler_settings(args), args.prompt_format, args.workers,
                             args.timeout_s, args.memory_limit_mb or None, args.sync, args.accept_state_loss)
    except (ValueError, KeyError, OSError) as error:
        sys.exit(f"rlve_jax.serve: {error}")
    max_body_bytes = int(args.max_body_mb * 2**20)
    app = create_app(service, token, max_body_bytes)
    log.info("serving %s (%d environments) on http://%s:%d, state in %s%s", args.collection,
             len(service.env_names), args.host, args.port, service.store.path, ", bearer auth" if token else "")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=max_body_bytes,
                http=guarded_http(args.request_timeout_s, args.max_connections))


if __name__ == "__main__":
    main()
