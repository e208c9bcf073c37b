"""The HTTP side of the memory adapter protocol: one call per protocol message, each reply validated against
its model (agents.memory.adapter.protocol).

Every request is counted in the usage ledger under the `memory` role (requests, retries, and replies that are
not the protocol's as invalid replies), like the LLM endpoints' requests. A timeout, a refused connection or a
5xx is tried again up to `retries` times; an error status below 500 and a garbage reply are not. A failure is
one AdapterError line naming the adapter, its URL and the call.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from agents.llm.accounting import UsageLedger
from agents.memory.adapter.protocol import (
    PATHS,
    PROTOCOL_VERSION,
    AddReply,
    AddRequest,
    InfoReply,
    ResetReply,
    ResetRequest,
    SearchReply,
    SearchRequest,
    StatsReply,
    Turn,
)
from agents.memory.adapter.settings import AdapterSettings
from agents.memory.errors import AdapterError, AdapterProtocolError

ROLE = "memory"
R = TypeVar("R", bound=BaseModel)


class AdapterClient:
    """Calls of one named adapter. Not thread-safe for the version check; the build and the rankers use one
    client per system instance."""

    def __init__(self, settings: AdapterSettings, ledger: UsageLedger | None = None) -> None:
        self.settings = settings
        self.ledger = ledger if ledger is not None else UsageLedger()
        self._http = httpx.Client(base_url=settings.url, timeout=settings.timeout_s)
        self.info: InfoReply | None = None

    def where(self, call: str) -> str:
        method, path = PATHS[call]
        return f"memory adapter {self.settings.name!r} at {self.settings.url}: {method} {path}"

    # --- the calls -------------------------------------------------------------------------------

    def check_info(self) -> InfoReply:
        """`GET /v1/info`, once: the adapter must speak this protocol version."""
        if self.info is None:
            info = self._call("info", None, InfoReply)
            if info.protocol_version != PROTOCOL_VERSION:
                raise AdapterProtocolError(
                    f"{self.where('info')}: the adapter ({info.name} {info.version}) speaks protocol version "
                    f"{info.protocol_version}, colabench speaks version {PROTOCOL_VERSION} (docs/memory-adapter.md)"
                )
            self.info = info
        return self.info

    def reset(self, user_id: str) -> ResetReply:
        self.check_info()
        return self._call("reset", ResetRequest(user_id=user_id), ResetReply)

    def add(self, user_id: str, batch_id: str, turns: list[Turn]) -> AddReply:
        self.check_info()
        return self._call("add", AddRequest(user_id=user_id, batch_id=batch_id, turns=turns), AddReply)

    def search(self, user_id: str, query: str, k: int) -> SearchReply:
        self.check_info()
        return self._call("search", SearchRequest(user_id=user_id, query=query, k=k), SearchReply)

    def stats(self) -> StatsReply | None:
        """`GET /v1/stats`, or None when the adapter has none (404)."""
        self.check_info()
        return self._call("stats", None, StatsReply, optional=True)

    def close(self) -> None:
        self._http.close()

    # --- plumbing --------------------------------------------------------------------------------

    def _call(self, call: str, body: BaseModel | None, reply: type[R], *, optional: bool = False) -> Any:
        method, path = PATHS[call]
        payload = body.model_dump(mode="json") if body is not None else None
        tries = self.settings.retries + 1
        last = ""
        for attempt in range(tries):
            self.ledger.record_request(ROLE, retry=attempt > 0)
            try:
                response = self._http.request(method, path, json=payload)
            except httpx.TimeoutException:
                last = f"timed out after {self.settings.timeout_s:g} s"
                continue
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            if response.status_code >= 500:
                last = f"HTTP {response.status_code}{_excerpt(response.text)}"
                continue
            if optional and response.status_code == 404:
                return None
            if response.status_code != 200:
                raise AdapterError(
                    f"{self.where(call)} failed: HTTP {response.status_code}{_excerpt(response.text)}",
                )
            return self._parse(call, response.text, reply)
        raise AdapterError(f"{self.where(call)} failed: {last} ({tries} tr{'y' if tries == 1 else 'ies'})")

    def _parse(self, call: str, text: str, reply: type[R]) -> R:
        try:
            data = json.loads(text)
        except ValueError:
            self.ledger.record_invalid(ROLE)
            raise AdapterError(f"{self.where(call)}: the reply is not JSON{_excerpt(text)}") from None
        try:
            return reply.model_validate(data)
        except ValidationError as exc:
            self.ledger.record_invalid(ROLE)
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(the body)"
            raise AdapterError(
                f"{self.where(call)}: the reply is not a protocol {reply.__name__}: {where}: {first['msg']} "
                f"({len(exc.errors())} error(s))"
            ) from None


def _excerpt(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    if not flat:
        return ""
    return f": {flat[:limit]}{'...' if len(flat) > limit else ''}"
