"""Known pins: the SHA-256 of published judge prompts a user may run verbatim instead of the project's own.

The project ships only the hashes (LongMemEval-V2's run page, seeds/002, gives them), never the texts. A user
who has the published file points at it with `--prompt NAME=PATH@SHA256` (or `@PIN_KEY`, e.g.
`@longmemeval_v2/abstention_system`); the file's bytes must hash to the pinned value, otherwise it is refused
with both hashes. A verified file stands in for the project's prompt NAME and is labelled in the run record
(`verbatim`, `pin`) and the report as "verbatim LongMemEval-V2 prompt X, sha256 ...".

How the published hashes were computed (reproduced from the seed's text): SHA-256 over the prompt's UTF-8
bytes exactly as printed, lines joined by a bare `\n`, no trailing newline, user prompts with the harness's
arguments left as `{name}` placeholders. A file saved with a final newline or CRLF line ends hashes
differently and is refused; `canonical_prompt_bytes` shows the convention.

Verbatim user prompts fill `{name}` placeholders (Python format style) by plain substitution of exactly the
pinned names, so other braces in the text (the JSON example) stay as they are.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from agents.prompts.template import PromptError, PromptTemplate, load_prompt_file

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_USER_FIELDS = frozenset({"question", "reference_answer", "model_full_response", "model_final_answer"})


@dataclass(frozen=True)
class PublishedPin:
    """The SHA-256 of one published prompt and the project prompt it may replace."""

    key: str
    sha256: str
    label: str
    prompt_name: str
    placeholders: frozenset[str] = frozenset()


KNOWN_PINS: dict[str, PublishedPin] = {
    pin.key: pin
    for pin in (
        PublishedPin(
            "longmemeval_v2/abstention_system",
            "4d82ebe1899a0f9c895346a7aba5ccbc0c57e42ae3813b5dfe94cf3eed6763ac",
            "LongMemEval-V2 abstention judge system prompt",
            "judge_abstention",
        ),
        PublishedPin(
            "longmemeval_v2/abstention_user",
            "3090d348693a213827ef4779a705c5f0b11ad9a500837adf2a87a4832ff176d7",
            "LongMemEval-V2 abstention judge user prompt",
            "judge_abstention_user",
            _USER_FIELDS,
        ),
        PublishedPin(
            "longmemeval_v2/gotcha_system",
            "c306af72e8e12f87250c42f19cd5670505e54c2590970d3b75ce3be1b5ae8f9a",
            "LongMemEval-V2 gotcha judge system prompt",
            "judge_gotcha",
        ),
        PublishedPin(
            "longmemeval_v2/gotcha_user",
            "9aea44ad4d0637a8c6a1db005d203dbf51d0c93989246abbf57acf82417494c2",
            "LongMemEval-V2 gotcha judge user prompt",
            "judge_gotcha_user",
            _USER_FIELDS,
        ),
    )
}
_BY_SHA = {pin.sha256: pin for pin in KNOWN_PINS.values()}


def pin_for(value: str) -> PublishedPin | None:
    """The known pin with this SHA-256 or key (None when it is neither)."""
    text = value.strip()
    return KNOWN_PINS.get(text) or _BY_SHA.get(text.lower())


def canonical_prompt_bytes(text: str) -> bytes:
    """The bytes a published prompt hash covers: UTF-8, `\\n` line ends, no trailing newline."""
    return text.replace("\r\n", "\n").rstrip("\n").encode("utf-8")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class VerbatimPromptTemplate(PromptTemplate):
    """A published prompt used as it is: `{name}` placeholders, hash over the file's bytes, labelled by its pin."""

    pin_key: str = ""
    pin_label: str = ""
    brace_names: frozenset[str] = field(default=frozenset())

    def __post_init__(self) -> None:
        object.__setattr__(self, "placeholders", frozenset(self.brace_names))
        object.__setattr__(self, "sha256", hashlib.sha256(self.text.encode("utf-8")).hexdigest())

    def render(self, **values: object) -> str:
        missing = self.placeholders - set(values)
        extra = set(values) - self.placeholders
        if missing or extra:
            raise PromptError(
                f"prompt {self.name} ({self.source}): missing values {sorted(missing)}, unexpected {sorted(extra)}"
            )
        if not self.placeholders:
            return self.text
        pattern = re.compile(r"\{(" + "|".join(re.escape(n) for n in sorted(self.placeholders)) + r")\}")
        return pattern.sub(lambda m: str(values[m.group(1)]), self.text)

    def record(self) -> dict[str, str]:
        return {**super().record(), "pin": self.pin_key, "verbatim": verbatim_label(self.pin_label, self.sha256)}


def verbatim_label(pin_label: str, sha256: str) -> str:
    return f"verbatim {pin_label}, sha256 {sha256}"


def load_pinned_prompt(builtin: PromptTemplate, path: Path, pin: PublishedPin) -> VerbatimPromptTemplate:
    """The published prompt file at `path` for `builtin`, checked against `pin` (PromptError otherwise)."""
    if pin.prompt_name != builtin.name:
        raise PromptError(
            f"{pin.key} (sha256 {pin.sha256}) is the pin of the {pin.label}, which stands in for prompt "
            f"{pin.prompt_name}, not {builtin.name}"
        )
    if not path.is_file():
        raise PromptError(f"prompt file for {builtin.name} not found: {path}")
    actual = file_sha256(path)
    if actual != pin.sha256:
        hint = ""
        data = path.read_bytes()
        if hashlib.sha256(canonical_prompt_bytes(data.decode("utf-8", "replace"))).hexdigest() == pin.sha256:
            hint = " (it matches once its line ends or final newline are removed: save it without them)"
        raise PromptError(
            f"prompt file {path} for {builtin.name} has SHA-256 {actual}, but the {pin.label} is pinned at "
            f"{pin.sha256}: it is not the verbatim published prompt{hint}; refusing it"
        )
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:  # cannot happen for a file matching a pin of UTF-8 text; kept explicit
        raise PromptError(f"prompt file {path} is not UTF-8: {exc}") from exc
    if pin.placeholders != builtin.placeholders:
        raise PromptError(
            f"the {pin.label} fills {sorted(pin.placeholders)}, but prompt {builtin.name} is filled with "
            f"{sorted(builtin.placeholders)}"
        )
    return VerbatimPromptTemplate(
        builtin.name,
        f"verbatim:{pin.key}",
        text,
        source=str(path),
        pin_key=pin.key,
        pin_label=pin.label,
        brace_names=pin.placeholders,
    )


def load_override(builtin: PromptTemplate, path: Path, expected: str | None) -> PromptTemplate:
    """A user's prompt file for `builtin`: verified against a known pin when `expected` names one (a SHA-256 or
    a pin key), or when the file itself hashes to a known pin of this prompt; otherwise an ordinary prompt file
    (placeholders `$name`, its hash checked against `expected` when given)."""
    if expected:
        pin = pin_for(expected)
        if pin is not None:
            return load_pinned_prompt(builtin, path, pin)
        if not _HEX64.match(expected.strip().lower()):
            raise PromptError(
                f"--prompt {builtin.name}=...@{expected}: after @ give a SHA-256 (64 hex digits) or a known pin "
                f"({', '.join(sorted(KNOWN_PINS))})"
            )
    elif path.is_file():
        pin = _BY_SHA.get(file_sha256(path))
        if pin is not None and pin.prompt_name == builtin.name:
            return load_pinned_prompt(builtin, path, pin)
    return load_prompt_file(builtin, path, expected)


def verbatim_prompts(records: dict[str, dict[str, str]]) -> dict[str, str]:
    """prompt name -> its verbatim label, for the records (run record `prompt_hashes`) of pinned prompts."""
    return {name: r["verbatim"] for name, r in sorted(records.items()) if r.get("verbatim")}
