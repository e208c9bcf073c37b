"""The endpoint check at the start of every command that needs LLM roles (agents/llm/preflight.py): one call,
after the command knows which roles it will use and before any work; `--no-endpoint-check` (or
`endpoint_check = false` in the [llm] table, `COLABENCH_LLM_ENDPOINT_CHECK=0`) skips it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import typer

from cli.context import console


def endpoint_check_option() -> Any:
    return typer.Option(
        False,
        "--no-endpoint-check",
        help="skip the check before any work that each LLM role's endpoint answers and serves its model (it "
        "fails in seconds with the role, URL and reason)",
    )


def check_endpoints(roles: Any, needed: Iterable[str], enabled: bool = True, *, models: Iterable[str] = ()) -> None:
    """Check the configured roles among `needed` of `roles` (an LLMRoles) and print one line; `models`: other
    models asked of the judge endpoint (a judge panel). Raises EndpointCheckError (exit 3) on the first failure."""
    from agents.llm.preflight import check_roles
    from agents.llm.settings import LLMGlobalSettings

    wanted = [role for role in dict.fromkeys(needed) if roles.configured(role)]
    if not wanted:
        return
    if not enabled or not LLMGlobalSettings().endpoint_check:
        console.print(f"endpoint check skipped for {', '.join(wanted)}", highlight=False)
        return
    settings = [roles.settings[role] for role in wanted]
    if "judge" in wanted:
        judge = roles.settings["judge"]
        settings += [judge.model_copy(update={"model": m}) for m in models if m != judge.model]
    checks = check_roles(settings)
    console.print(
        "endpoints answer: " + "; ".join(f"{c.role} {c.model} at {c.url}" for c in checks), highlight=False,
        markup=False, soft_wrap=True,
    )
