"""The reference adapter's FastAPI app. `test_mode` makes it misbehave on purpose, for the suite and for
checking a client: `bad_turn` (every added memory also names a turn it was never sent), `garbage` (add and
search answer 200 with a body that is not JSON), `hang` (add and search never answer until the server stops),
`old_protocol` (`/v1/info` reports protocol version 0)."""

from __future__ import annotations

import threading
from typing import Any

from anyio import to_thread
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

from agents.memory.adapter.protocol import (
    PROTOCOL_VERSION,
    AddReply,
    AddRequest,
    InfoReply,
    ResetReply,
    ResetRequest,
    SearchReply,
    SearchRequest,
    StatsReply,
)
from agents.memory.adapter_server.store import KeywordMemory

NAME = "colabench-reference"
VERSION = "1.0"
TEST_MODES = ("none", "bad_turn", "garbage", "hang", "old_protocol")
UNSENT_TURN = "turn-never-sent"


def create_app(memory: KeywordMemory | None = None, *, test_mode: str = "none") -> FastAPI:
    if test_mode not in TEST_MODES:
        raise ValueError(f"unknown test mode {test_mode!r}; choose from {', '.join(TEST_MODES)}")
    memory = memory or KeywordMemory()
    app = FastAPI(title="colabench reference memory adapter", version=VERSION)
    # set when the server stops: `hang` requests return then (so shutdown never waits on them)
    release = threading.Event()
    app.state.memory = memory
    app.state.release = release
    app.state.test_mode = test_mode

    async def misbehave() -> PlainTextResponse | None:
        if test_mode == "hang":
            await to_thread.run_sync(release.wait)
            return PlainTextResponse("stopped", status_code=503)
        if test_mode == "garbage":
            return PlainTextResponse("<html>upstream says hello</html>")
        return None

    @app.get("/v1/info", response_model=InfoReply)
    def info() -> InfoReply:
        version = 0 if test_mode == "old_protocol" else PROTOCOL_VERSION
        return InfoReply(name=NAME, version=VERSION, protocol_version=version)

    @app.post("/v1/reset", response_model=ResetReply)
    def reset(body: ResetRequest) -> ResetReply:
        return ResetReply(removed=memory.reset(body.user_id))

    @app.post("/v1/add", response_model=None)
    async def add(body: AddRequest) -> Any:
        odd = await misbehave()
        if odd is not None:
            return odd
        written = await to_thread.run_sync(memory.add, body.user_id, body.batch_id, body.turns)
        if test_mode == "bad_turn":
            written = [w.model_copy(update={"turn_ids": [*w.turn_ids, UNSENT_TURN]}) for w in written]
        return AddReply(memories=written)

    @app.post("/v1/search", response_model=None)
    async def search(body: SearchRequest) -> Any:
        odd = await misbehave()
        if odd is not None:
            return odd
        found = await to_thread.run_sync(memory.search, body.user_id, body.query, body.k)
        return SearchReply(memories=found)

    @app.get("/v1/stats", response_model=StatsReply)
    def stats() -> StatsReply:
        users, memories, per_user = memory.stats()
        return StatsReply(users=users, memories=memories, details={"memories_per_user": per_user})

    return app
