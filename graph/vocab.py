"""Vocabularies: the words an event field may hold when a registry above this room owns them (the synthesis
stages of agents/synthesis/registry.py), so that graph/events.py validates the field without importing the room
that owns the words.

A registry registers its words here (`Vocabulary.register`) and, once, a discoverer: a function that imports
whatever registers the rest (the stage modules). A field typed `Annotated[str, AfterValidator(vocabulary.check)]`
is checked when an event is made: the word must be registered, after the discoverers and the plug-ins
(graph/plugins.py) had their chance. An event read back from the log (`graph.events.parse_event`) needs only a
well-formed word: it was checked when it was written, and the log stays readable by a process that never loaded
the registry (`graph rebuild`)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, ValidationInfo

from graph.plugins import load_plugins

# The validation context key `parse_event` sets for events read back from the log.
STORED = "stored"
WORD = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class Vocabulary:
    """The words one kind of name may take (e.g. synthesis stage names), registered from above."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._words: list[str] = []
        self._discoverers: list[Callable[[], None]] = []
        self._discovered = False
        self._lock = threading.RLock()

    def register(self, word: str) -> None:
        """Add a word (registering one twice is a no-op)."""
        if not WORD.match(word):
            raise ValueError(f"{self.what} name {word!r}: lowercase letters, digits and _, starting with a letter")
        with self._lock:
            if word not in self._words:
                self._words.append(word)

    def unregister(self, word: str) -> None:
        with self._lock:
            if word in self._words:
                self._words.remove(word)

    def add_discoverer(self, discover: Callable[[], None]) -> None:
        """A function that registers the words it knows (imports the modules that register themselves); run once,
        on the first look-up that needs it."""
        with self._lock:
            if discover not in self._discoverers:
                self._discoverers.append(discover)
                self._discovered = False

    def _discover(self) -> None:
        with self._lock:
            if self._discovered:
                return
            self._discovered = True  # before running: a discoverer that looks a word up does not come back here
            for discover in list(self._discoverers):
                discover()
        load_plugins()

    def words(self) -> tuple[str, ...]:
        """Every registered word, after the discoverers and the plug-ins ran."""
        self._discover()
        return tuple(self._words)

    def check(self, word: str, info: ValidationInfo) -> str:
        """`word` if it is registered (or, for an event read from the log, well-formed); ValueError otherwise."""
        if word in self._words:
            return word
        context: Any = info.context
        if isinstance(context, dict) and context.get(STORED):
            if WORD.match(word):
                return word
            raise ValueError(f"{self.what} {word!r} is not a well-formed name")
        known = self.words()
        if word not in known:
            raise ValueError(f"unknown {self.what} {word!r}; registered: {', '.join(known) or 'none'}")
        return word


SYNTHESIS_STAGES = Vocabulary("synthesis stage")
# The type of an event field naming a synthesis stage.
SynthesisStageName = Annotated[str, AfterValidator(SYNTHESIS_STAGES.check)]
