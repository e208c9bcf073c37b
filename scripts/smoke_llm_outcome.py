"""One summary line of a `make smoke-llm` step from its exit code and its output (scripts/smoke_llm.sh).

    python scripts/smoke_llm_outcome.py counts SERVER_ROOT SERVER_LOG   -> the server's counters as JSON
    python scripts/smoke_llm_outcome.py line NAME EXIT_CODE LOG SECONDS BEFORE_JSON AFTER_JSON

`counts` reads llama-server's own figures: completions it finished (its "total time =" log lines, one per reply)
and, from `GET /metrics` (served with --metrics), prompt tokens processed, prompt tokens reused from its prefix
cache and tokens generated. `line` prints the step's outcome with its wall time and what the server did meanwhile.

Exit 0 is "ok". Exit 3 (an endpoint or partial failure) whose only failures are requests the client refused
locally because they do not fit the server's context (agents/llm/context_size.py: "the request's messages alone
are M tokens ... is N tokens per slot: refused here, not sent") is "ok; skipped ROLE: context N < request M": the
rest of the step ran, the smoke could not exercise that role's requests on this server, nothing was sent for
them, and it is not a plumbing failure.
Exit 3 with any other failure is "errors" (the refusals are named too). Any other exit code is "FAILED". Prints
the line; exits 1 for FAILED, else 0."""

from __future__ import annotations

import json
import re
import sys
import urllib.request
from pathlib import Path

# The local refusal of agents/llm/context_size.oversized_text, read from whitespace-joined output.
REFUSED = re.compile(
    r"role '(?P<role>[^']+)': the request's messages alone are (?P<request>[\d,]+) tokens \(counted by the "
    r"server's /tokenize\) and the context of \S+ is (?P<context>[\d,]+) tokens per slot: refused here, not sent"
)
# What other failures say (agents/llm/client.py, agents/memory/cut_replies.py, a crash).
OTHER_FAILURES = (
    "kept failing",
    "refused the request for model",
    "returned no valid",
    "cut off at max_tokens",
    "Traceback (most recent call last)",
)


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def outcome(name: str, code: int, output: str) -> str:
    text = " ".join(output.split())
    if code == 0:
        return f"ok       {name}"
    if code != 3:
        return f"FAILED   {name} (exit {code})"
    largest: dict[tuple[str, int], int] = {}
    counts: dict[tuple[str, int], int] = {}
    for match in REFUSED.finditer(text):
        key = (match["role"], _number(match["context"]))
        largest[key] = max(largest.get(key, 0), _number(match["request"]))
        counts[key] = counts.get(key, 0) + 1
    refusals = "; ".join(
        f"skipped {role}: context {context:,} < request {largest[(role, context)]:,} "
        f"({counts[(role, context)]} request(s) refused locally, not sent)"
        for role, context in sorted(largest)
    )
    others = [marker for marker in OTHER_FAILURES if marker in text]
    if refusals and not others:
        return f"ok       {name}; {refusals}"
    detail = f"other failures ({', '.join(repr(m) for m in others) or 'see above'})"
    return f"errors   {name} (exit 3: {detail}" + (f"; also {refusals}" if refusals else "") + ")"


def counts(root: str, server_log: Path) -> dict[str, int]:
    """The server's counters now (0 where it does not say)."""
    text = server_log.read_text(encoding="utf-8", errors="replace") if server_log.exists() else ""
    found = {"requests": len(re.findall(r"\btotal time\s*=", text)), "prompt": 0, "cached": 0, "predicted": 0}
    names = {
        "prompt_tokens_total": "prompt",
        "prompt_tokens_cached_total": "cached",
        "tokens_predicted_total": "predicted",
    }
    try:
        with urllib.request.urlopen(root.rstrip("/") + "/metrics", timeout=10) as reply:
            metrics = reply.read().decode("utf-8", errors="replace")
    except OSError:
        return found
    for row in metrics.splitlines():
        parts = row.split()
        if len(parts) == 2 and parts[0].startswith("llamacpp:") and parts[0][9:] in names:
            found[names[parts[0][9:]]] = int(float(parts[1]))
    return found


def server_part(seconds: float, before: dict[str, int], after: dict[str, int]) -> str:
    """Wall time and the server's work during the step."""
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    seen = d["prompt"] + d["cached"]
    hit = f", prefix cache {d['cached'] / seen:.0%}" if seen else ""
    return (
        f"[{seconds:,.0f} s; server: {d['requests']} completions, {seen:,} prompt tokens{hit}, "
        f"{d['predicted']:,} generated]"
    )


def main() -> None:
    if sys.argv[1] == "counts":
        print(json.dumps(counts(sys.argv[2], Path(sys.argv[3]))))
        return
    name, code, log = sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    seconds, before, after = float(sys.argv[5]), json.loads(sys.argv[6]), json.loads(sys.argv[7])
    line = outcome(name, code, log.read_text(encoding="utf-8", errors="replace"))
    print(f"{line} {server_part(seconds, before, after)}")
    sys.exit(1 if line.startswith("FAILED") else 0)


if __name__ == "__main__":
    main()
