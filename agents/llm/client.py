"""The one way the project calls an LLM: the openai SDK against any OpenAI-compatible endpoint.

`LLMClient.chat` sends one chat completion (optionally with tools) through the response cache, retrying
429/5xx/timeouts/malformed replies after jittered waits (at least Retry-After when the endpoint sends one), and
under the endpoint's concurrency and requests-per-minute limits (agents/llm/rate_limit.py). `LLMClient.structured`
asks for JSON validated by a pydantic model, through OpenAI `json_schema` output or, for servers without it,
`json_object` output with the schema in the prompt; an invalid reply is answered with the validation error
and asked again.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from agents.llm.accounting import UsageLedger
from agents.llm.cache import ResponseCache, request_key
from agents.llm.error_text import error_body_head, without_request_text
from agents.llm.errors import LLMError, LLMInterruptedError, LLMOutputError, LLMRefusedError, LLMUnavailableError
from agents.llm.exchanges import ExchangeStore
from agents.llm.rate_limit import Backoff, EndpointLimiter, endpoint_identity
from agents.llm.settings import CacheMode, LLMRoleSettings, public_url
from agents.prompts.output import STRUCTURED_REPAIR, json_object_instruction

T = TypeVar("T", bound=BaseModel)
Message = dict[str, Any]

# Status codes worth another try: request timeout, conflict, rate limit, and every server-side error.
_RETRY_STATUS = {408, 409, 425, 429}


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asked for; `arguments` is the raw JSON text the model wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    content: str | None
    tool_calls: list[ToolCallRequest]
    finish_reason: str | None
    tokens_in: int
    tokens_out: int
    cached: bool
    request_sha256: str
    model: str
    # The hash of this request and reply in the exchange store (None: the client keeps no store).
    exchange: str | None = None
    # Prompt tokens the endpoint's prefix cache held (None: it did not say, or the reply came from our cache).
    prompt_cached_tokens: int | None = None

    def to_cache(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls],
            "finish_reason": self.finish_reason,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "model": self.model,
        }

    @classmethod
    def from_cache(cls, data: dict[str, Any], key: str) -> ChatReply:
        return cls(
            content=data.get("content"),
            tool_calls=[ToolCallRequest(str(c["id"]), str(c["name"]), str(c["arguments"])) for c in data["tool_calls"]],
            finish_reason=data.get("finish_reason"),
            tokens_in=int(data.get("tokens_in", 0)),
            tokens_out=int(data.get("tokens_out", 0)),
            cached=True,
            request_sha256=key,
            model=str(data.get("model", "")),
        )

    def assistant_message(self) -> Message:
        """The reply as an assistant message to continue the conversation with."""
        message: Message = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return message


@dataclass
class StructuredReply(Generic[T]):
    """A validated structured reply and the raw replies it took (the last one is the valid one)."""

    value: T
    replies: list[ChatReply] = field(default_factory=list)

    @property
    def tokens_in(self) -> int:
        return sum(r.tokens_in for r in self.replies)

    @property
    def exchange(self) -> str | None:
        """The exchange of the valid reply: its request holds every earlier try and repair message."""
        return self.replies[-1].exchange if self.replies else None

    @property
    def tokens_out(self) -> int:
        return sum(r.tokens_out for r in self.replies)


class _MalformedReplyError(Exception):
    """The endpoint answered 200 with a body that is not a usable chat completion."""


class LLMClient:
    """A role's client: settings, the shared cache and ledger, a per-role concurrency limit and the endpoint's
    limiter (shared by every client of the endpoint; see LLMRoles)."""

    def __init__(
        self,
        settings: LLMRoleSettings,
        *,
        cache: ResponseCache | None,
        ledger: UsageLedger,
        cache_mode: CacheMode = "use",
        sleep: Callable[[float], None] = time.sleep,
        slots: threading.BoundedSemaphore | None = None,
        cache_namespace: str = "",
        stop: threading.Event | None = None,
        exchanges: ExchangeStore | None = None,
        limiter: EndpointLimiter | None = None,
        gate: Callable[[str], None] | None = None,
    ) -> None:
        settings.require()
        # Called with the role before every request is sent; raises to stop it (a spending limit).
        self.gate = gate
        # Every request and reply is kept here (content-addressed); replies carry their exchange hash.
        self.exchanges = exchanges
        # Open `exchange_trail()` lists: each collects the exchanges this client makes while it is open.
        self._trails: list[list[str]] = []
        self._trail_lock = threading.Lock()
        self.cache_namespace = cache_namespace
        self._context: tuple[int | None] | None = None  # the context size, once asked (see context_tokens)
        # Set on Ctrl-C (shared by every client of a run): no new request is sent, backoff waits end.
        self.stop = stop or threading.Event()
        self.settings = settings
        self.role = settings.role
        self.cache = cache if cache_mode != "off" else None
        self.cache_mode = cache_mode
        self.ledger = ledger
        self._sleep = sleep
        # Shared between clients of one role (see LLMRoles) so the role's concurrency limit holds overall.
        self._slots = slots or threading.BoundedSemaphore(settings.concurrency)
        self.limiter = limiter or EndpointLimiter(
            endpoint_identity(settings), settings.endpoint_concurrency, settings.endpoint_rpm
        )
        # Retry jitter: one generator per client (seeded by `retry_seed` for reproducible waits).
        self._rng = random.Random(settings.retry_seed)
        self._rng_lock = threading.Lock()
        self._client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.resolved_api_key(),
            timeout=settings.timeout_s,
            max_retries=0,
        )

    @property
    def model(self) -> str:
        return str(self.settings.model)

    def close(self) -> None:
        self._client.close()

    # --- plain chat ------------------------------------------------------------------------------

    def build_request(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> dict[str, Any]:
        """The request body (what the cache key hashes, with the endpoint's base URL); no API key."""
        s = self.settings
        request: dict[str, Any] = {
            "model": s.model,
            "messages": list(messages),
            "temperature": s.temperature,
            "max_tokens": max_tokens or s.max_tokens,
        }
        if s.top_p is not None:
            request["top_p"] = s.top_p
        if s.seed is not None:
            request["seed"] = s.seed
        if tools:
            request["tools"] = list(tools)
            request["tool_choice"] = tool_choice or "auto"
        if response_format is not None:
            request["response_format"] = response_format
        if s.extra_body:
            request["extra_body"] = dict(s.extra_body)
        return request

    def cache_key(self, request: dict[str, Any]) -> str:
        """The response-cache key of a built request: the request, this client's namespace and its endpoint."""
        return request_key(request, self.cache_namespace, str(self.settings.base_url))

    def chat(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[dict[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        cache_reply: bool = True,
    ) -> ChatReply:
        """One chat completion, from the cache when the identical request was answered before. A reply cut
        by `max_tokens` (finish_reason `length`) is never cached; with `cache_reply=False` the caller caches
        the reply itself once it has checked it (`remember`)."""
        request = self.build_request(
            messages, tools=tools, tool_choice=tool_choice, response_format=response_format, max_tokens=max_tokens
        )
        key = self.cache_key(request)
        s = self.settings
        started = time.perf_counter()
        hit = self.cache.get(key) if self.cache is not None and self.cache_mode == "use" else None
        if hit is not None:
            reply = ChatReply.from_cache(hit, key)
        else:
            try:
                self._check_context(request)
                reply = self._send_with_retries(request, key)
                self._check_served_model(reply)
            except LLMError as exc:
                exc.role = self.role
                raise
            if cache_reply and reply.finish_reason != "length":
                self.remember(reply)
        if self.exchanges is not None:
            reply = replace(
                reply,
                exchange=self.exchanges.put(
                    role=self.role, request=request, reply=reply.to_cache(), namespace=self.cache_namespace
                ),
            )
            with self._trail_lock:
                for trail in self._trails:
                    trail.append(str(reply.exchange))
        self.ledger.record_call(
            self.role,
            cached=reply.cached,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            price_in_per_mtok=s.price_in_per_mtok,
            price_out_per_mtok=s.price_out_per_mtok,
            price_cached_per_mtok=s.price_cached_per_mtok,
            seconds=time.perf_counter() - started,
            served_model=None if reply.cached else reply.model,
            configured_model=s.model,
            prompt_cached_tokens=None if reply.cached else reply.prompt_cached_tokens,
        )
        return reply

    @property
    def context_tokens(self) -> int | None:
        """The role's context size: the setting, else asked once of the server (`/props`), else None."""
        if self._context is None:
            from agents.llm.context_size import probe_context_tokens

            s = self.settings
            found = s.context_tokens or probe_context_tokens(str(s.base_url), s.resolved_api_key())
            self._context = (found,)
        return self._context[0]

    def _check_context(self, request: dict[str, Any]) -> None:
        """Refuse (LLMContextExceededError, not sent) a request whose text alone fills the role's context."""
        from agents.llm.context_size import (
            LLMContextExceededError,
            count_server_tokens,
            oversized_text,
            request_text,
        )

        context = self.context_tokens
        if context is None:
            return
        text = request_text(request)
        if len(text.encode("utf-8")) < context:
            return  # fewer bytes than the context: fewer tokens too
        s = self.settings
        tokens = count_server_tokens(str(s.base_url), text, s.resolved_api_key())
        if tokens is not None and tokens >= context:
            raise LLMContextExceededError(oversized_text(self.role, public_url(str(s.base_url)), tokens, context))

    def _check_served_model(self, reply: ChatReply) -> None:
        """Under `strict_model`, a reply from another model than the configured one is an error (not cached);
        otherwise the ledger counts the name it gave and the command says so once (served_model.mismatch_lines)."""
        from agents.llm.served_model import LLMModelMismatchError, mismatch_text, same_model

        s = self.settings
        if s.strict_model and not same_model(s.model, reply.model):
            raise LLMModelMismatchError(mismatch_text(self.role, s.model, reply.model, public_url(str(s.base_url))))

    @contextmanager
    def exchange_trail(self) -> Iterator[list[str]]:
        """The hashes of the exchanges this client makes (in any thread) while the block runs, in order: for
        callers whose LLM calls happen inside a library (Mem0, A-MEM, Graphiti) and so never see the replies."""
        trail: list[str] = []
        with self._trail_lock:
            self._trails.append(trail)
        try:
            yield trail
        finally:
            with self._trail_lock:
                self._trails = [t for t in self._trails if t is not trail]

    def remember(self, reply: ChatReply) -> None:
        """Cache a reply fetched with `cache_reply=False` (after the caller found it valid)."""
        if self.cache is not None and not reply.cached:
            self.cache.put(reply.request_sha256, model=self.model, role=self.role, response=reply.to_cache())

    def backoff(self) -> Backoff:
        """The retry waits of one request (each request starts from the base wait again)."""
        s = self.settings
        return Backoff(s.retry_jitter, s.retry_base_s, s.retry_max_s, self._rng, self._rng_lock)

    def _wait_before_retry(self, delay: float) -> None:
        """Sleep `delay` seconds (cut short by `stop`) and count the time waited."""
        if self._sleep is time.sleep:
            started = time.perf_counter()
            interrupted = self.stop.wait(delay)
            waited = time.perf_counter() - started if interrupted else delay
        else:
            self._sleep(delay)
            waited = delay
        self.ledger.record_wait(self.role, backoff_s=waited)

    def _send_with_retries(self, request: dict[str, Any], key: str) -> ChatReply:
        s = self.settings
        last_problem = ""
        last_retry_after: float | None = None
        backoff = self.backoff()
        for attempt in range(s.max_retries + 1):
            if attempt:
                self._wait_before_retry(backoff.delay(attempt, last_retry_after))
            if self.stop.is_set():
                raise LLMInterruptedError(f"role {self.role!r}: interrupted before the request was sent")
            if self.gate is not None:
                self.gate(self.role)
            last_retry_after = None
            try:
                with self._slot():
                    self.ledger.record_request(self.role, retry=attempt > 0)
                    return self._send_once(request, key)
            except openai.APIStatusError as exc:
                said = error_body_head(_response_text(exc), request)
                _without_request_text(exc, request)
                status = exc.status_code
                if status == 429:
                    self.ledger.record_rate_limited(self.role)
                if status not in _RETRY_STATUS and status < 500:
                    raise LLMRefusedError(
                        f"role {self.role!r}: {public_url(str(s.base_url))} refused the request for model "
                        f"{s.model!r} with HTTP {status}: {said or _short(exc.message)}"
                    ) from exc
                last_problem = f"HTTP {status}" + (f" (endpoint said: {said})" if said else "")
                last_retry_after = _retry_after(exc)
            except openai.APITimeoutError:
                last_problem = f"timeout after {s.timeout_s:g} s"
            except openai.APIConnectionError as exc:
                _without_request_text(exc, request)
                last_problem = f"connection failed ({_short(str(exc))})"
            except (openai.APIResponseValidationError, _MalformedReplyError, json.JSONDecodeError, ValueError) as exc:
                _without_request_text(exc, request)
                last_problem = f"malformed reply ({_short(str(exc))})"
        raise LLMUnavailableError(
            f"role {self.role!r}: {public_url(str(s.base_url))} (model {s.model!r}) kept failing: {last_problem} "
            f"after {s.max_retries + 1} request(s); check the endpoint, or raise max_retries / timeout_s"
        )

    @contextmanager
    def _slot(self) -> Iterator[None]:
        """Hold a slot of the role (its concurrency) and one of the endpoint (its concurrency and per-minute
        limit), always in this order; the time waited for them is counted."""
        started = time.perf_counter()
        with self._slots:
            role_wait = time.perf_counter() - started
            with self.limiter.slot(self.stop) as endpoint_wait:
                self.ledger.record_wait(self.role, limiter_s=role_wait + endpoint_wait)
                yield

    def _send_once(self, request: dict[str, Any], key: str) -> ChatReply:
        params = {k: v for k, v in request.items() if k != "extra_body"}
        create: Any = self._client.chat.completions.create
        completion = create(**params, extra_body=request.get("extra_body"))
        choices = getattr(completion, "choices", None)
        if not choices:
            raise _MalformedReplyError("no choices in the completion")
        message = choices[0].message
        if message is None:
            raise _MalformedReplyError("the first choice has no message")
        calls = [
            ToolCallRequest(str(c.id), str(c.function.name), str(c.function.arguments or "{}"))
            for c in (message.tool_calls or [])
            if getattr(c, "function", None) is not None
        ]
        usage = getattr(completion, "usage", None)
        return ChatReply(
            prompt_cached_tokens=prompt_cached_tokens(completion),
            content=message.content,
            tool_calls=calls,
            finish_reason=choices[0].finish_reason,
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
            cached=False,
            request_sha256=key,
            model=str(getattr(completion, "model", None) or ""),  # what answered; empty: not said
        )

    # --- structured output -----------------------------------------------------------------------

    def structured(
        self,
        messages: Sequence[Message],
        output: type[T],
        *,
        name: str,
        check: Callable[[T], str | None] | None = None,
        max_tokens: int | None = None,
    ) -> StructuredReply[T]:
        """A reply parsed into `output` and accepted by `check` (which returns a problem or None); invalid
        replies are answered with the problem and asked again, and LLMOutputError is raised at the end.
        `max_tokens` caps the reply (default: the role's setting)."""
        schema = output.model_json_schema()
        conversation = list(messages)
        if self.settings.structured_mode == "json_schema":
            response_format: dict[str, Any] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": is_strict_compatible(schema)},
            }
        else:
            response_format = {"type": "json_object"}
            # Some servers accept only one leading system message, so the schema joins it.
            instruction = json_object_instruction(schema)
            if conversation and conversation[0].get("role") == "system":
                first = dict(conversation[0])
                first["content"] = f"{first.get('content') or ''}\n\n{instruction}"
                conversation[0] = first
            else:
                conversation.insert(0, {"role": "system", "content": instruction})
        replies: list[ChatReply] = []
        problem = ""
        grown = False
        for _ in range(self.settings.invalid_output_retries + 1):
            reply = self.chat(conversation, response_format=response_format, max_tokens=max_tokens, cache_reply=False)
            replies.append(reply)
            if reply.finish_reason == "length":
                # Cut off at max_tokens: not an answer to repair. Ask the same again once with twice the budget.
                budget = max_tokens or self.settings.max_tokens
                problem = f"the reply was cut off at max_tokens={budget} (finish_reason 'length')"
                self.ledger.record_invalid(self.role)
                if grown:
                    break
                max_tokens, grown = budget * 2, True
                continue
            try:
                value = output.model_validate_json(extract_json_object(reply.content or ""))
                rejected = check(value) if check is not None else None
                if rejected is None:
                    self.remember(reply)
                    return StructuredReply(value, replies)
                problem = _short(rejected, 600)
            except ValidationError as exc:
                problem = _short(plain_validation_problem(exc), 600)
            except ValueError as exc:
                problem = _short(str(exc), 600)
            self.ledger.record_invalid(self.role)
            conversation = [
                *conversation,
                {"role": "assistant", "content": reply.content or ""},
                {"role": "user", "content": STRUCTURED_REPAIR.render(problem=problem)},
            ]
        error = LLMOutputError(
            f"role {self.role!r} (model {self.model!r}) returned no valid {name} after "
            f"{len(replies)} attempt(s); last problem: {problem}"
        )
        error.role = self.role
        error.exchange = replies[-1].exchange if replies else None
        raise error


def plain_validation_problem(exc: ValidationError) -> str:
    """A pydantic validation error in plain words: one `where: what` per problem, no documentation links."""
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err.get("loc", ())) or "the reply"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "the reply does not match the schema"


def extract_json_object(text: str) -> str:
    """The JSON object in a reply, tolerating code fences or prose around it."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ValueError(f"no JSON object in the reply: {_short(text, 200)!r}")
    return text[start : end + 1]


def is_strict_compatible(schema: dict[str, Any]) -> bool:
    """True when every object forbids extra keys and requires all its properties (OpenAI strict mode)."""

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                if node.get("additionalProperties") is not False:
                    return False
                if set(node.get("required", [])) != set(node["properties"]):
                    return False
            if "default" in node:
                return False
            return all(walk(v) for v in node.values())
        if isinstance(node, list):
            return all(walk(v) for v in node)
        return True

    return walk(schema)


def _without_request_text(exc: BaseException, request: dict[str, Any]) -> None:
    """Rewrite `exc`'s message without the request's words: it stays chained to the LLMError raised from it, so
    a traceback (the CLI's debug log) would otherwise print the body of an endpoint that echoed the request."""
    if isinstance(exc, json.JSONDecodeError):
        exc.doc = ""  # the reply's text, not printed but kept on the exception
    message = without_request_text(str(exc), request)
    exc.args = (message,)
    if isinstance(exc, openai.APIError):
        exc.message = message
        exc.body = None


def _response_text(exc: openai.APIStatusError) -> str:
    """The error body as the endpoint sent it ("" when the response is not there to read)."""
    try:
        return str(exc.response.text or "")
    except (AttributeError, UnicodeDecodeError, openai.OpenAIError):
        return ""


def prompt_cached_tokens(completion: Any) -> int | None:
    """How many prompt tokens the endpoint's prefix cache held, as it says: `usage.prompt_tokens_details.
    cached_tokens` (OpenAI, vLLM, recent llama.cpp), else llama.cpp's `timings.cache_n`, else `tokens_cached`
    (llama.cpp's own completion fields); None when it says nothing."""
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    found = getattr(details, "cached_tokens", None)
    if found is None:
        timings = getattr(completion, "timings", None)
        found = timings.get("cache_n") if isinstance(timings, dict) else getattr(timings, "cache_n", None)
    if found is None:
        found = getattr(completion, "tokens_cached", None)
    if isinstance(found, bool) or not isinstance(found, (int, float)) or found < 0:
        return None
    return int(found)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    try:
        value = exc.response.headers.get("retry-after")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
