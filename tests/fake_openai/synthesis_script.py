"""A scripted responder for every synthesis role (the `synth` tests and bench).

Structured roles are recognised by the schema title of their reply model; the role's view is the JSON of its
first user message (the prompts render nothing else). Handlers live in modules `synth_*.py` next to this one,
each exporting `HANDLERS: {schema title: handler(view, body, policy) -> Reply}`; a test may override any of
them. Tool-using requests (the stage II Assistant) go to the handler registered under "assistant".
Every request is kept in `policy.requests` as (role name, body), so tests can assert on what each role saw.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import threading
from collections.abc import Callable
from typing import Any

from tests.fake_openai.policy import schema_title
from tests.fake_openai.server import Reply

Handler = Callable[[dict[str, Any], dict[str, Any], "SynthesisPolicy"], Reply]


def _discovered() -> dict[str, Handler]:
    import tests.fake_openai as package

    found: dict[str, Handler] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("synth_"):
            found.update(getattr(importlib.import_module(f"{package.__name__}.{info.name}"), "HANDLERS", {}))
    return found


def first_user_json(body: dict[str, Any]) -> dict[str, Any]:
    """The view a synthesis role was given (its first user message, as JSON); {} when it is not JSON."""
    for message in body.get("messages", []):
        if message.get("role") == "user":
            try:
                value = json.loads(str(message.get("content") or ""))
            except json.JSONDecodeError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def repairs(body: dict[str, Any]) -> int:
    """How many times this conversation was re-asked after an invalid reply."""
    return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant" and not m.get("tool_calls"))


class SynthesisPolicy:
    def __init__(self, overrides: dict[str, Handler] | None = None, **options: Any) -> None:
        self.handlers = {**_discovered(), **(overrides or {})}
        self.options = options
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        title = schema_title(body)
        name = title if title is not None else ("assistant" if body.get("tools") else "plain")
        with self._lock:
            self.requests.append((name, body))
        handler = self.handlers.get(name)
        if handler is None:
            raise KeyError(f"no synthesis handler for {name!r}")
        return handler(first_user_json(body), body, self)

    def seen(self, name: str) -> list[dict[str, Any]]:
        """Bodies of the requests one role sent (by schema title, or "assistant")."""
        with self._lock:
            return [body for n, body in self.requests if n == name]
