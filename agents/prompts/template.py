"""Prompt templates as versioned code: a name, a version, the text and its SHA-256.

Placeholders are `$name` (string.Template), so JSON braces in a prompt need no escaping. The hash is over
the template text (UTF-8), recorded on every call and verdict; an external prompt file replaces a built-in
template only when it keeps the same placeholders, and its hash is checked when an expected one is given.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path

from graph.errors import ColabenchError
from graph.hashing import text_sha256


class PromptError(ColabenchError, ValueError):
    """A prompt template or an external prompt file is unusable (missing placeholder, hash mismatch)."""


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: str
    text: str
    source: str = "builtin"
    placeholders: frozenset[str] = field(init=False)
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "placeholders", frozenset(template_placeholders(self.text)))
        object.__setattr__(self, "sha256", text_sha256(self.text))

    def render(self, **values: object) -> str:
        """The text with every placeholder filled; a missing or unexpected value is a PromptError."""
        missing = self.placeholders - set(values)
        extra = set(values) - self.placeholders
        if missing or extra:
            raise PromptError(
                f"prompt {self.name} ({self.source}): missing values {sorted(missing)}, unexpected {sorted(extra)}"
            )
        return string.Template(self.text).substitute({k: str(v) for k, v in values.items()})

    def record(self) -> dict[str, str]:
        """What runs and verdicts store about this prompt."""
        return {"name": self.name, "version": self.version, "sha256": self.sha256, "source": self.source}


def template_placeholders(text: str) -> set[str]:
    """Names used as $name or ${name} in a template."""
    names: set[str] = set()
    for match in string.Template.pattern.finditer(text):
        name = match.group("named") or match.group("braced")
        if name:
            names.add(name)
    return names


def load_prompt_file(builtin: PromptTemplate, path: Path, expected_sha256: str | None = None) -> PromptTemplate:
    """A user's prompt file standing in for `builtin`.

    The file's SHA-256 must equal `expected_sha256` when given, and its placeholders must be exactly those
    of the built-in template (the code fills them)."""
    if not path.is_file():
        raise PromptError(f"prompt file for {builtin.name} not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as exc:
        raise PromptError(f"prompt file {path} for {builtin.name} cannot be read as UTF-8 text: {exc}") from exc
    loaded = PromptTemplate(builtin.name, f"file:{path.name}", text, source=str(path))
    if expected_sha256 and loaded.sha256 != expected_sha256.lower():
        raise PromptError(
            f"prompt file {path} for {builtin.name} has SHA-256 {loaded.sha256}, expected {expected_sha256}; "
            "the file changed since the hash was pinned: re-pin it or restore the file"
        )
    if loaded.placeholders != builtin.placeholders:
        raise PromptError(
            f"prompt file {path} for {builtin.name} must use exactly the placeholders "
            f"{sorted('$' + p for p in builtin.placeholders)}; it uses {sorted('$' + p for p in loaded.placeholders)}"
        )
    return loaded


_ROLE_MARKERS = {"[[system]]": "system", "[[user]]": "user"}


def render_messages(template: PromptTemplate, **values: object) -> list[dict[str, str]]:
    """Render a template written as `[[system]]` / `[[user]]` sections into chat messages."""
    text = template.render(**values)
    messages: list[dict[str, str]] = []
    role: str | None = None
    lines: list[str] = []
    for line in text.split("\n"):
        marker = _ROLE_MARKERS.get(line.strip())
        if marker is not None:
            if role is not None:
                messages.append({"role": role, "content": "\n".join(lines).strip()})
            role, lines = marker, []
            continue
        lines.append(line)
    if role is None:
        raise PromptError(f"prompt {template.name} ({template.source}) has no [[system]] or [[user]] section")
    messages.append({"role": role, "content": "\n".join(lines).strip()})
    return messages
