"""`colabench llm settings|ping|cache|prompts|show`: inspect the LLM roles, the response cache, the prompts
and the kept exchanges."""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from cli.context import console, err_console, expected_errors
from graph.errors import BadInputError, UsageError

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True)


@app.command("settings")
@expected_errors
def settings() -> None:
    """Each role's endpoint (without credentials), model and parameters, one block per role (readable in a
    narrow terminal and in logs); API keys are never shown."""
    from agents.llm.settings import ROLES, LLMGlobalSettings, load_role_settings

    for line in settings_lines(ROLES, load_role_settings, LLMGlobalSettings()):
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def not_configured_hint(role: str) -> str:
    """What to set so that `role` has an endpoint (one line)."""
    return (
        f"set COLABENCH_LLM_BASE_URL and COLABENCH_LLM_MODEL (every role), or COLABENCH_LLM_{role.upper()}_BASE_URL "
        f"and COLABENCH_LLM_{role.upper()}_MODEL (this role), or base_url and model in [llm] / [llm.{role}] of "
        "colabench.toml; then `./colabench llm ping`"
    )


def settings_lines(roles: tuple[str, ...], load: Any, general: Any) -> list[str]:
    """The lines `llm settings` prints: a block per role, then the response cache."""
    from agents.llm.settings import public_url

    lines: list[str] = []
    for role in roles:
        s = load(role)
        state = "configured" if s.configured else f"not configured: {not_configured_hint(role)}"
        lines.append(f"{role}: {state}")
        lines.append(f"  base URL  {public_url(s.base_url) if s.base_url else '-'}")
        lines.append(f"  model     {s.model or '-'}")
        lines.append(
            f"  sampling  temperature {s.temperature:g}, max tokens {s.max_tokens}, "
            f"seed {s.seed if s.seed is not None else '-'}"
        )
        lines.append(f"  requests  timeout {s.timeout_s:g} s, concurrency {s.concurrency}, retries {s.max_retries}")
        rpm = f"{s.endpoint_rpm}/min" if s.endpoint_rpm else "no per-minute limit"
        lines.append(f"  endpoint  {s.endpoint_concurrency} in flight, {rpm} (over every role of this URL + key)")
        lines.append(f"  retry     {s.retry_jitter} jitter, {s.retry_base_s:g} s base, at most {s.retry_max_s:g} s")
        lines.append(f"  output    {s.structured_mode}, key {'set' if s.resolved_api_key() != 'no-key' else 'none'}")
    namespace = general.cache_namespace or "none (set COLABENCH_LLM_CACHE_NAMESPACE per endpoint setup)"
    lines.append(f"response cache: {general.cache_path}")
    lines.append(f"  mode {general.cache_mode}, namespace {namespace}")
    return lines


@app.command("ping")
@expected_errors
def ping(
    role: str = typer.Option("answerer", help="which role's endpoint to call"),
    strict_model: bool = typer.Option(
        False, "--strict-model", help="exit 3 when the reply names another model than the configured one"
    ),
) -> None:
    """Send one tiny request (not cached) to a role's endpoint and print the reply, the model that answered and
    the latency; a reply from another model than the configured one is a warning (exit 3 with --strict-model)."""
    import time

    from agents.llm.accounting import UsageLedger
    from agents.llm.client import LLMClient
    from agents.llm.served_model import mismatch_text, same_model
    from agents.llm.settings import load_role_settings, public_url

    settings = load_role_settings(role, **({"strict_model": True} if strict_model else {}))
    client = LLMClient(settings, cache=None, ledger=UsageLedger(), cache_mode="off")
    started = time.perf_counter()
    reply = client.chat([{"role": "user", "content": "Reply with the single word: ready"}], max_tokens=8)
    served = reply.model or "(the reply names no model)"
    tokens = client.context_tokens
    context = f"{tokens:,} tokens per slot" if tokens else "unknown (the server does not say)"
    console.print(
        f"{role}: {client.model} replied {reply.content!r} in {time.perf_counter() - started:.2f} s "
        f"({reply.tokens_in} tokens in, {reply.tokens_out} out); served model {served}; context {context}"
    )
    if not same_model(client.model, reply.model):
        text = mismatch_text(role, client.model, reply.model, public_url(str(settings.base_url)))
        err_console.print(f"[bold yellow]warning:[/] {text} (--strict-model makes this exit 3)", highlight=False)


@app.command("cache")
@expected_errors
def cache(
    clear: bool = typer.Option(False, "--clear", help="delete cached replies"),
    role: str = typer.Option(None, help="only this role's replies (with --clear)"),
) -> None:
    """Rows of the response cache per role and model; `--clear` empties it (all roles, or one)."""
    from agents.llm.cache import ResponseCache
    from agents.llm.settings import LLMGlobalSettings

    store = ResponseCache(LLMGlobalSettings().cache_path)
    if clear:
        console.print(f"deleted {store.clear(role)} cached replies from {store.path}")
        return
    table = Table(title=f"response cache {store.path}")
    for column in ("role", "model", "replies"):
        table.add_column(column)
    for r, m, n in store.stats():
        table.add_row(r, m, str(n))
    console.print(table)


@app.command("prompts")
@expected_errors
def prompts(
    show: str = typer.Option(None, help="print this template's text (to copy into a prompt file)"),
    prompt: list[str] = typer.Option(None, "--prompt", help="NAME=PATH[@SHA256] overrides to check"),
) -> None:
    """Every prompt template with its version and SHA-256 (after any configured prompt files)."""
    from agents.prompts.registry import PromptSet

    prompt_set = PromptSet.from_config(prompt or [])
    if show:
        records = prompt_set.records()
        if show not in records:
            raise BadInputError(f"unknown prompt {show!r}; prompts are {', '.join(records)}")
        print(prompt_set[show].text)
        return
    table = Table(title="prompt templates")
    for column in ("name", "version", "sha256", "source"):
        table.add_column(column)
    for name, record in prompt_set.records().items():
        table.add_row(name, record["version"], record["sha256"], record["source"])
    console.print(table)


@app.command("show")
@expected_errors
def show(
    exchange: str = typer.Argument(..., help="exchange hash (the `exchange` field of an event, 64 hex digits)"),
    token: str = typer.Option(
        None, "--token", help="the API token (COLABENCH_API_TOKEN); `-` reads it from stdin. Judge and synthesis "
        "exchanges hold gold and need it"
    ),
) -> None:
    """Print one kept LLM exchange as JSON: role, model, the whole request (messages, tools, parameters) as it
    was sent, and the reply. Judge and synthesis requests contain gold (reference answers, private facts): they
    are shown only with the API token."""
    import json
    import sys

    from agents.llm.exchanges import GOLD_ROLES, ExchangeStore, check_exchange_hash
    from agents.llm.settings import LLMGlobalSettings

    check_exchange_hash(exchange)
    path = LLMGlobalSettings().exchanges_path
    if not path.exists():
        raise UsageError(f"no LLM exchange {exchange!r}: there is no exchange store at {path} (nothing kept yet)")
    store = ExchangeStore(path)
    try:
        role = store.role_of(exchange)
        if role in GOLD_ROLES:
            _require_token(token if token != "-" else sys.stdin.readline().strip(), role)
        print(json.dumps(store.show(exchange), ensure_ascii=False, indent=2, sort_keys=True))
    finally:
        store.close()


def _require_token(given: str | None, role: str) -> None:
    """Refuse unless `given` is the configured API token (compared in constant time)."""
    import hmac

    from api.settings import ApiSettings

    configured = ApiSettings().token
    if configured is None:
        raise UsageError(
            f"this {role} exchange holds gold and is shown only with the API token: set COLABENCH_API_TOKEN "
            "(or `token` in the [api] table of colabench.toml) and pass it with --token"
        )
    if not given:
        raise UsageError(f"this {role} exchange holds gold: pass the API token with --token (or `--token -`)")
    if not hmac.compare_digest(given.encode(), configured.encode()):
        raise UsageError("the token given with --token is not the API token")
