"""Known pins of published judge prompts: a file whose SHA-256 differs from its pin is refused with both hashes;
a verbatim published prompt (extracted from seeds/002 when ../shared is present) is accepted under its
published hash, labelled verbatim in the prompt record, and filled without touching its other braces."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from agents.prompts.pins import KNOWN_PINS, VerbatimPromptTemplate, load_override, pin_for
from agents.prompts.registry import PromptSet
from agents.prompts.template import PromptError
from tests.paths import REPO

SEEDS = REPO.parent / "shared" / "seeds"
# A prompt block of the seed: its header line gives the SHA-256, the block follows after one blank line and
# runs to the next heading (the page prints each prompt verbatim, one line per prompt line).
_HEADER = re.compile(r"^(System|User) prompt[^\n]*SHA-256 ([0-9a-f]{64}):\n\n", re.MULTILINE)
_NEXT_HEADING = re.compile(
    r"\n+(?=(?:System prompt|User prompt|Gotchas questions|The reader's system prompt|Reproduce)\b)"
)


def seed_text() -> str:
    found = sorted(SEEDS.glob("002_*.txt"))
    if not found:
        pytest.skip("../shared/seeds/002_*.txt is not present")
    return found[0].read_bytes().decode("utf-8")


def extract_judge_prompts(text: str) -> list[tuple[str, str, str]]:
    """(part, published sha256, exact prompt text) for every judge prompt block of the seed, in page order."""
    out = []
    for header in _HEADER.finditer(text):
        rest = text[header.end() :]
        end = _NEXT_HEADING.search(rest)
        out.append((header.group(1).lower(), header.group(2), rest[: end.start()] if end else rest.rstrip("\n")))
    return out


def write_bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_prompt_file_whose_sha256_differs_from_its_pin_is_refused_with_both_hashes(tmp_path: Path) -> None:
    pin = KNOWN_PINS["longmemeval_v2/abstention_system"]
    fake = write_bytes(tmp_path / "abstention_system.txt", b"You are a lenient grader. Always give label 1.")
    actual = hashlib.sha256(fake.read_bytes()).hexdigest()
    for given in (pin.sha256, pin.key):  # the hash itself or the pin's key after @
        with pytest.raises(PromptError) as refused:
            PromptSet.from_config([f"judge_abstention={fake}@{given}"])
        message = str(refused.value)
        assert actual in message and pin.sha256 in message and "refusing" in message


def test_a_pin_given_for_another_prompt_is_refused(tmp_path: Path) -> None:
    fake = write_bytes(tmp_path / "p.txt", b"anything")
    with pytest.raises(PromptError, match="stands in for prompt judge_abstention, not judge_gotcha"):
        PromptSet.from_config([f"judge_gotcha={fake}@{KNOWN_PINS['longmemeval_v2/abstention_system'].sha256}"])


def test_after_at_only_a_sha256_or_a_known_pin_key_is_accepted(tmp_path: Path) -> None:
    fake = write_bytes(tmp_path / "p.txt", b"anything")
    with pytest.raises(PromptError, match="64 hex digits"):
        PromptSet.from_config([f"judge_gotcha={fake}@longmemeval_v2/nothing"])


def test_four_published_pins_are_shipped_without_their_texts() -> None:
    assert sorted(KNOWN_PINS) == [
        "longmemeval_v2/abstention_system", "longmemeval_v2/abstention_user",
        "longmemeval_v2/gotcha_system", "longmemeval_v2/gotcha_user",
    ]  # fmt: skip
    source = (REPO / "agents" / "prompts" / "pins.py").read_text()
    assert "strict grader" not in source  # the hash only, never the published wording
    assert all(pin_for(p.sha256) is p and pin_for(p.key) is p for p in KNOWN_PINS.values())


def test_verbatim_user_prompt_fills_only_its_named_braces() -> None:
    pin = KNOWN_PINS["longmemeval_v2/gotcha_user"]
    text = 'Q: {question}\nR: {reference_answer}\nF: {model_full_response}\nA: {model_final_answer}\n{"label": 0}'
    template = VerbatimPromptTemplate(
        "judge_gotcha_user", "v", text, pin_key=pin.key, pin_label=pin.label, brace_names=pin.placeholders
    )
    rendered = template.render(question="q?", reference_answer="r", model_full_response="f {x}", model_final_answer="a")
    assert rendered == 'Q: q?\nR: r\nF: f {x}\nA: a\n{"label": 0}'
    assert template.record()["verbatim"].startswith("verbatim LongMemEval-V2 gotcha judge user prompt, sha256 ")


def test_seed_abstention_system_prompt_is_accepted_under_its_published_hash(tmp_path: Path) -> None:
    blocks = extract_judge_prompts(seed_text())
    assert [(part, sha) for part, sha, _ in blocks] == [
        ("system", KNOWN_PINS["longmemeval_v2/abstention_system"].sha256),
        ("user", KNOWN_PINS["longmemeval_v2/abstention_user"].sha256),
        ("system", KNOWN_PINS["longmemeval_v2/gotcha_system"].sha256),
        ("user", KNOWN_PINS["longmemeval_v2/gotcha_user"].sha256),
    ]
    _, published, text = blocks[0]
    # The published hash covers the UTF-8 bytes as printed: no trailing newline.
    path = write_bytes(tmp_path / "abstention_system.txt", text.encode("utf-8"))
    prompts = PromptSet.from_config([f"judge_abstention={path}@{published}"])
    record = prompts.records(["judge_abstention"])["judge_abstention"]
    assert record["sha256"] == published and record["pin"] == "longmemeval_v2/abstention_system"
    assert record["verbatim"] == f"verbatim LongMemEval-V2 abstention judge system prompt, sha256 {published}"
    assert prompts["judge_abstention"].render() == text
    # The same text saved with a final newline is refused, and the message says why.
    with pytest.raises(PromptError, match="final newline"):
        load_override(prompts["judge_abstention"], write_bytes(tmp_path / "nl.txt", (text + "\n").encode()), published)


def test_every_seed_judge_prompt_verifies_and_a_pinned_file_is_recognised_without_the_hash(tmp_path: Path) -> None:
    names = ["judge_abstention", "judge_abstention_user", "judge_gotcha", "judge_gotcha_user"]
    specs = []
    for name, (_, published, text) in zip(names, extract_judge_prompts(seed_text()), strict=True):
        path = write_bytes(tmp_path / f"{name}.txt", text.encode("utf-8"))
        assert hashlib.sha256(path.read_bytes()).hexdigest() == published
        specs.append(f"{name}={path}")  # no @SHA256: the file's own hash names its pin
    prompts = PromptSet.from_config(specs)
    records = prompts.records(names)
    assert all(r.get("verbatim") for r in records.values())
    user = prompts["judge_abstention_user"].render(
        question="Q1", reference_answer="R1", model_full_response="F1", model_final_answer="A1"
    )
    assert "Q1" in user and "{question}" not in user and '{"label": 0 or 1' in user
