"""A memory adapter wrapping MemOS (`MemoryOS` 2.0.33, MemTensor): its MemReader extracts memories from each
batch of turns (fine mode: one LLM call per chat window, MemOS's own prompt) and its tree text memory
(`TreeTextMemory`, backend `neo4j`, one shared database with logical isolation by user name) stores and searches
them (`search(mode="fast")`). Each memory names the turns of the batch its MemReader window came from (MemOS's
`sources[].index`). Where MemOS's reader would carry on past a failed or unparseable LLM reply (keeping the raw
window text as a memory) the add is refused with HTTP 422 and nothing of the batch is stored.

It runs in the MemOS environment (`scripts/setup_memos_env.sh`: MemOS pins transformers < 5, openai < 2 and
fastapi < 0.116 against the project's), not in the project's, so it imports nothing of colabench but the
protocol's message models, loaded from their file. Settings (environment):

  MEMOS_ADAPTER_LLM_BASE_URL, MEMOS_ADAPTER_LLM_MODEL, MEMOS_ADAPTER_LLM_API_KEY   (an OpenAI-compatible endpoint)
  MEMOS_ADAPTER_EMBED_BASE_URL, MEMOS_ADAPTER_EMBED_MODEL, MEMOS_ADAPTER_EMBED_DIM (OpenAI-compatible embeddings)
  MEMOS_ADAPTER_NEO4J_URI (bolt://127.0.0.1:7687), MEMOS_ADAPTER_NEO4J_USER / _PASSWORD, MEMOS_ADAPTER_NEO4J_DB

`$(scripts/setup_memos_env.sh)/bin/python agents/memory/adapter_server/memos_server.py --port 8766` prints
`READY <base url>` once it serves.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import threading
from pathlib import Path
from typing import Any

_PROTOCOL = Path(__file__).resolve().parent.parent / "adapter" / "protocol.py"


def _load_protocol() -> Any:
    spec = importlib.util.spec_from_file_location("colabench_adapter_protocol", _PROTOCOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


P = _load_protocol()
NAME = "memos"


def _env(name: str, default: str | None = None) -> str:
    value = os.environ.get(name, default)
    if value is None or not value.strip():
        raise SystemExit(f"memos adapter: set {name}")
    return value.strip()


class ReaderFailure(Exception):
    """MemOS's reader logged a failed or unparseable LLM reply and carried on with the raw text as a memory."""


class MemosMemory:
    """MemOS's reader and tree text memory, one user name per colabench user (profile)."""

    def __init__(self) -> None:
        from memos.configs.mem_reader import SimpleStructMemReaderConfig
        from memos.configs.memory import TreeTextMemoryConfig
        from memos.mem_reader.simple_struct import SimpleStructMemReader
        from memos.memories.textual.tree import TreeTextMemory

        llm = {
            "backend": "openai",
            "config": {
                "model_name_or_path": _env("MEMOS_ADAPTER_LLM_MODEL"),
                "api_key": _env("MEMOS_ADAPTER_LLM_API_KEY", "none"),
                "api_base": _env("MEMOS_ADAPTER_LLM_BASE_URL"),
                "temperature": 0.0,
                "max_tokens": 2048,
            },
        }
        embedder = {
            "backend": "universal_api",
            "config": {
                "provider": "openai",
                "api_key": _env("MEMOS_ADAPTER_LLM_API_KEY", "none"),
                "base_url": _env("MEMOS_ADAPTER_EMBED_BASE_URL"),
                "model_name_or_path": _env("MEMOS_ADAPTER_EMBED_MODEL"),
                "embedding_dims": int(_env("MEMOS_ADAPTER_EMBED_DIM")),
            },
        }
        self.reader = SimpleStructMemReader(
            SimpleStructMemReaderConfig(
                llm=llm,
                embedder=embedder,
                # documents only (never used for chat); a character count needs no tokenizer download
                chunker={
                    "backend": "sentence",
                    "config": {"tokenizer_or_token_counter": "character", "chunk_size": 512, "chunk_overlap": 64},
                },
                remove_prompt_example=False,
            )
        )
        self.tree = TreeTextMemory(
            TreeTextMemoryConfig(
                extractor_llm=llm,
                dispatcher_llm=llm,
                embedder=embedder,
                graph_db={
                    "backend": "neo4j",
                    "config": {
                        "uri": _env("MEMOS_ADAPTER_NEO4J_URI", "bolt://127.0.0.1:7687"),
                        "user": os.environ.get("MEMOS_ADAPTER_NEO4J_USER", "neo4j"),
                        "password": os.environ.get("MEMOS_ADAPTER_NEO4J_PASSWORD", "none"),
                        "db_name": _env("MEMOS_ADAPTER_NEO4J_DB", "neo4j"),
                        "auto_create": False,
                        "use_multi_db": False,
                        "user_name": "colabench",
                        "embedding_dimension": int(_env("MEMOS_ADAPTER_EMBED_DIM")),
                    },
                },
                reorganize=False,
                mode="sync",
            )
        )
        self._lock = threading.Lock()
        self._batches: dict[tuple[str, str], list[str]] = {}
        self._failures: list[str] = []
        self._watch_reader()

    def _watch_reader(self) -> None:
        """Note each reply the reader could not use: MemOS's `_get_llm_response` then keeps the raw window text
        as a memory and logs nothing for a reply that parses to nothing."""
        generate, parse = self.reader._safe_generate, self.reader._safe_parse

        def watched_generate(messages: list[dict[str, Any]]) -> str | None:
            text = generate(messages)
            if not text:
                self._failures.append("the LLM call failed or answered nothing")
            return text

        def watched_parse(text: str | None) -> dict[str, Any] | None:
            result = parse(text)
            if text and not result:
                self._failures.append(f"JSON parse failed on the reply {text[:120]!r}")
            return result

        self.reader._safe_generate = watched_generate
        self.reader._safe_parse = watched_parse

    def reset(self, user_id: str) -> int:
        with self._lock:
            before = len(self.tree.get_all(user_name=user_id).get("nodes", []))
            self.tree.delete_all(user_name=user_id)
            for key in [k for k in self._batches if k[0] == user_id]:
                del self._batches[key]
            return before

    def add(self, user_id: str, batch_id: str, turns: list[Any]) -> list[Any]:
        scene = [
            {
                "role": "user" if t.role == "user" else "assistant",
                "content": t.text,
                "chat_time": t.timestamp or "",
            }
            for t in turns
        ]
        with self._lock:
            self._failures.clear()
            info = {"user_id": user_id, "session_id": batch_id}
            groups = self.reader.get_memory([scene], type="chat", info=info)
            if self._failures:
                # MemOS would keep the raw window text as a memory: refuse instead (nothing of the batch is stored)
                raise ReaderFailure(f"MemOS's reader: {'; '.join(self._failures[:3])} on batch {batch_id!r}")
            items = [item for group in groups for item in group]
            earlier = self._batches.pop((user_id, batch_id), [])
            if earlier:
                self.tree.delete(earlier, user_name=user_id)
            self.tree.add(items, user_name=user_id)
            self._batches[(user_id, batch_id)] = [item.id for item in items]
        written = []
        for item in items:
            indexes = [getattr(s, "index", None) for s in (item.metadata.sources or [])]
            turn_ids = [turns[i].turn_id for i in indexes if isinstance(i, int) and 0 <= i < len(turns)]
            written.append(
                P.WrittenMemory(
                    id=item.id, op="ADD", text=item.memory, turn_ids=list(dict.fromkeys(turn_ids)),
                    metadata={"memory_type": item.metadata.memory_type, "key": item.metadata.key or ""},
                )
            )
        written += [P.WrittenMemory(id=gone, op="DELETE") for gone in earlier]
        return written

    def search(self, user_id: str, query: str, k: int) -> list[Any]:
        found = self.tree.search(query, top_k=k, mode="fast", user_name=user_id)
        hits = []
        for item in found[:k]:
            score = getattr(item.metadata, "relativity", None)
            hits.append(P.FoundMemory(id=item.id, text=item.memory, score=score, turn_ids=[]))
        return hits


def create_app(memory: MemosMemory) -> Any:
    import memos
    from fastapi import FastAPI, HTTPException

    app = FastAPI(title="colabench memory adapter: MemOS")
    version = getattr(memos, "__version__", "2.0.33")

    @app.get("/v1/info")
    def info() -> Any:
        return P.InfoReply(name=NAME, version=str(version), protocol_version=P.PROTOCOL_VERSION)

    @app.post("/v1/reset")
    def reset(body: P.ResetRequest) -> Any:  # type: ignore[name-defined]
        return P.ResetReply(removed=memory.reset(body.user_id))

    @app.post("/v1/add")
    def add(body: P.AddRequest) -> Any:  # type: ignore[name-defined]
        try:
            return P.AddReply(memories=memory.add(body.user_id, body.batch_id, body.turns))
        except ReaderFailure as exc:
            raise HTTPException(status_code=422, detail=str(exc)) from None

    @app.post("/v1/search")
    def search(body: P.SearchRequest) -> Any:  # type: ignore[name-defined]
        return P.SearchReply(memories=memory.search(body.user_id, body.query, body.k))

    return app


def main(argv: list[str] | None = None) -> None:
    """Bind the socket, open MemOS, print `READY <base url>` on stdout (the only line there: logs go to stderr),
    then serve (port 0: a free port)."""
    import socket

    import uvicorn

    parser = argparse.ArgumentParser(description="the MemOS memory adapter (docs/memory-adapter.md)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args(argv)
    # MemOS logs to stdout: everything but the READY line goes to stderr
    ready = sys.stdout
    sys.stdout = sys.stderr
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    app = create_app(MemosMemory())
    print(f"READY http://{args.host}:{sock.getsockname()[1]}", file=ready, flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])


if __name__ == "__main__":
    main()
