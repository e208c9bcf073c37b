"""The reference memory adapter: a small FastAPI app serving the memory adapter protocol
(docs/memory-adapter.md) over a plain in-process keyword memory. It is the test adapter of the suite and the
template for wrapping another memory system: replace `KeywordMemory` with calls into that system.

`python -m agents.memory.adapter_server --port 8765` serves it; `serve_in_thread` runs it inside a process."""

from agents.memory.adapter_server.app import TEST_MODES, create_app
from agents.memory.adapter_server.serve import serve_in_thread
from agents.memory.adapter_server.store import KeywordMemory

__all__ = ["TEST_MODES", "KeywordMemory", "create_app", "serve_in_thread"]
