"""The answering model's tokenizer, found once per run: what Read's 3,000-token limit and A-MEM's 5,120-token
cap are counted in.

In order:
1. the endpoint's own `/tokenize` (at the server root, beside `/v1`): llama.cpp's server
   (`POST /tokenize {"content": text}` -> `{"tokens": [...]}`) or vLLM's
   (`POST /tokenize {"model", "prompt"}` -> `{"count", "tokens"}`); the probe tries llama.cpp's form, then vLLM's;
2. tiktoken, for OpenAI model names (`gpt-4o`, `o3`, ...), only when its BPE file is already on this machine:
   nothing is downloaded at run time (tiktoken's own fetch is blocked while the encoding loads);
3. otherwise the MiniLM WordPiece fallback (query/tokens.py), with the reason; the run record and the report
   name it.

Counts are cached per text (a document's lines are read again and again). A `/tokenize` that worked at the
probe and fails later raises TokenizerUnavailableError: a run never switches tokenizer silently half-way.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import httpx

from query.errors import QueryError
from query.tokens import WORDPIECE, TokenCounter

_CACHE_ENTRIES = 50_000
_PROBE_TEXT = "How many tokens is this sentence?"


class TokenizerUnavailableError(QueryError):
    """The answering endpoint's tokenizer failed after the run's probe found it working."""


class _CountCache:
    """A bounded, thread-safe text -> count cache."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> int | None:
        with self._lock:
            value = self._items.get(text)
            if value is not None:
                self._items.move_to_end(text)
            return value

    def put(self, text: str, value: int) -> None:
        with self._lock:
            self._items[text] = value
            if len(self._items) > _CACHE_ENTRIES:
                self._items.popitem(last=False)


def server_root(base_url: str) -> str:
    """The server root of an OpenAI-compatible base URL (`http://host:8080/v1` -> `http://host:8080`)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


class EndpointTokenizer:
    """Counts with the endpoint's `/tokenize` (`flavour` llama.cpp or vllm, as found by the probe)."""

    def __init__(self, base_url: str, model: str, flavour: str, *, api_key: str = "", timeout_s: float = 10.0) -> None:
        self.url = server_root(base_url) + "/tokenize"
        self.model = model
        self.flavour = flavour
        self.name = f"{model} via the endpoint's /tokenize ({flavour})"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout_s
        self._cache = _CountCache()
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # Picklable for Ray actors: the HTTP client, lock and cache are made again on the other side.
        state = dict(self.__dict__)
        state.update(_client=None, _lock=None, _cache=None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._cache = _CountCache()

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self._timeout, headers=self._headers)
            return self._client

    def body(self, text: str) -> dict[str, Any]:
        if self.flavour == "llama.cpp":
            return {"content": text, "add_special": False}
        return {"model": self.model, "prompt": text, "add_special_tokens": False}

    def count_one(self, text: str) -> int:
        """One text's count from the endpoint (raises httpx / ValueError problems to the caller)."""
        response = self._http().post(self.url, json=self.body(text))
        response.raise_for_status()
        return parse_count(response.json())

    def count(self, texts: list[str]) -> list[int]:
        out: list[int] = []
        for text in texts:
            cached = self._cache.get(text)
            if cached is None:
                try:
                    cached = self.count_one(text)
                except (httpx.HTTPError, ValueError) as exc:
                    raise TokenizerUnavailableError(
                        f"the answering model's tokenizer at {self.url} failed ({_short(exc)}); it worked when this "
                        "run started, so the run stops instead of counting in another tokenizer: check the "
                        "endpoint and rerun (the run resumes)"
                    ) from exc
                self._cache.put(text, cached)
            out.append(cached)
        return out

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def parse_count(body: Any) -> int:
    """The token count of a `/tokenize` reply: vLLM's `count`, else the length of `tokens`."""
    if isinstance(body, dict):
        if isinstance(body.get("count"), int):
            return int(body["count"])
        if isinstance(body.get("tokens"), list):
            return len(body["tokens"])
    raise ValueError(f"not a /tokenize reply: {_short(body)}")


class TiktokenCounter:
    """Counts with tiktoken's encoding for an OpenAI model name (loaded from files already on this machine)."""

    def __init__(self, model: str, encoding_name: str) -> None:
        self.model = model
        self.encoding_name = encoding_name
        self.name = f"{model} via tiktoken ({encoding_name})"
        self._encoding: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_encoding": None}

    def _loaded(self) -> Any:
        if self._encoding is None:
            self._encoding = load_offline_encoding(self.encoding_name)
        return self._encoding

    def count(self, texts: list[str]) -> list[int]:
        encoding = self._loaded()
        return [len(encoding.encode(t, disallowed_special=())) for t in texts]


class OfflineEncodingError(Exception):
    """tiktoken would have to download this encoding's BPE file."""


def load_offline_encoding(encoding_name: str) -> Any:
    """tiktoken's encoding when its BPE file is cached on this machine; OfflineEncodingError when tiktoken would
    have to fetch it (the fetch is replaced by this error, so nothing is downloaded)."""
    import tiktoken
    import tiktoken.load

    def refuse(blobpath: str) -> bytes:
        raise OfflineEncodingError(f"tiktoken's BPE file for {encoding_name} is not on this machine")

    original = tiktoken.load.read_file
    tiktoken.load.read_file = refuse
    try:
        return tiktoken.get_encoding(encoding_name)
    finally:
        tiktoken.load.read_file = original


@dataclass(frozen=True)
class TokenizerChoice:
    """The counter a run uses and what the run record says about it."""

    counter: TokenCounter
    source: str  # "endpoint", "tiktoken" or "fallback"
    fallback_reason: str | None = None

    def record(self) -> dict[str, Any]:
        return {"name": self.counter.name, "source": self.source, "fallback_reason": self.fallback_reason}

    def note(self) -> str | None:
        """The line a run prints and the report shows when the fallback is used."""
        if self.fallback_reason is None:
            return None
        return (
            f"tokens (Read's 3,000-token limit, A-MEM's 5,120-token cap) are counted with the fallback "
            f"{self.counter.name}, not the answering model's tokenizer: {self.fallback_reason}"
        )


def probe_tokenizer(
    base_url: str | None, model: str | None, *, api_key: str = "", timeout_s: float = 10.0
) -> TokenizerChoice:
    """Find the answering model's tokenizer (see the module docstring); never raises for a missing one."""
    problems: list[str] = []
    if base_url and model:
        for flavour in ("llama.cpp", "vllm"):
            candidate = EndpointTokenizer(base_url, model, flavour, api_key=api_key, timeout_s=timeout_s)
            try:
                if candidate.count_one(_PROBE_TEXT) > 0:
                    return TokenizerChoice(candidate, "endpoint")
                problems.append(f"{candidate.url} ({flavour} form) counted 0 tokens")
            except (httpx.HTTPError, ValueError) as exc:
                problems.append(f"{candidate.url} ({flavour} form): {_short(exc)}")
            candidate.close()
    elif not base_url:
        problems.append("the answerer role has no endpoint")
    if model:
        encoding = _tiktoken_encoding_name(model)
        if encoding is None:
            problems.append(f"tiktoken knows no encoding for model {model!r}")
        else:
            try:
                load_offline_encoding(encoding)
                return TokenizerChoice(TiktokenCounter(model, encoding), "tiktoken")
            except OfflineEncodingError as exc:
                problems.append(f"{exc} (it is never downloaded at run time)")
    return TokenizerChoice(WORDPIECE, "fallback", "; ".join(problems) or "no tokenizer found")


def _tiktoken_encoding_name(model: str) -> str | None:
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        return str(tiktoken.encoding_name_for_model(model))
    except KeyError:
        return None


def _short(value: Any, limit: int = 200) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
