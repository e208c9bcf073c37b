"""`colabench adjudicate`: a person rules pass or fail on pending needs_adjudication verdicts (or overrules a
verdict), each ruling an AnswerAdjudicated event. Interactive by default; `--attempt` records one ruling."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import typer

from cli.context import console, expected_errors, open_store
from graph.errors import BadInputError, UsageError

if TYPE_CHECKING:
    from agents.adjudication.models import VerdictCase
    from graph.store import EventStore


def register(app: typer.Typer) -> None:
    app.command("adjudicate")(adjudicate)


def _short(text: str | None, n: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1] + "…"


@expected_errors
def adjudicate(
    run_ids: list[str] = typer.Argument(None, help="runs whose verdicts to adjudicate (default: the latest batch)"),
    list_only: bool = typer.Option(False, "--list", help="list the pending verdicts and stop"),
    include_resolved: bool = typer.Option(
        False, "--all", help="with --list or interactively: every counted verdict, not only the pending ones"
    ),
    attempt: str = typer.Option(None, "--attempt", help="record one ruling on this attempt (<run_id>:<item_id>)"),
    verdict: str = typer.Option(None, "--verdict", help="with --attempt: pass or fail"),
    reason: str = typer.Option(None, "--reason", help="with --attempt: why (kept as gold, like a judge rationale)"),
    by: str = typer.Option(None, "--by", help="who rules (asked once when interactive and not given)"),
    at: str = typer.Option(None, "--at", help="when, ISO 8601 UTC (default: now)"),
    judgment: str = typer.Option(None, "--judgment", help="the accuracy judgment ruled on (default: the counted one)"),
    overrule: bool = typer.Option(False, "--overrule", help="allow ruling on a verdict that is not pending"),
) -> None:
    """List pending needs_adjudication verdicts with the item's question, requirements, the answer, the judge's
    rationale and the evidence trace, and record a person's pass/fail ruling with a reason. Raw accuracy never
    changes; reports show the accuracy after adjudication and the count still pending beside it."""
    from agents.adjudication.cases import latest_batch_run_ids, load_cases
    from agents.adjudication.models import AdjudicationRequest
    from agents.adjudication.record import record_adjudication

    with open_store(with_encoder=False, check_schema=False) as store:
        if attempt:
            missing = [
                name for name, value in (("--verdict", verdict), ("--reason", reason), ("--by", by)) if not value
            ]
            if missing:
                raise BadInputError(
                    f"--attempt needs {', '.join(missing)} too (or leave out --attempt to rule interactively)"
                )
            if run_ids or list_only:
                raise BadInputError("--attempt records one ruling: give no run ids and no --list with it")
            event = record_adjudication(
                store,
                AdjudicationRequest(
                    attempt_id=attempt,
                    verdict=_verdict(verdict),
                    reason=reason,
                    adjudicator=by,
                    judgment_id=judgment,
                    adjudicated_at=at,
                    overrule=overrule,
                ),
            )
            console.print(
                f"recorded: {event.attempt_id} adjudicated {event.verdict} by {event.adjudicator} "
                f"({event.adjudication_id})"
            )
            return
        runs = list(run_ids or []) or latest_batch_run_ids(store.driver, store.database)
        if not runs:
            raise UsageError("no runs in the graph: run `./colabench run` first")
        cases = load_cases(store.driver, store.database, runs, include_resolved=include_resolved)
        what = "counted verdicts" if include_resolved else "pending verdicts"
        if list_only:
            # One plain line per verdict: attempt ids stay whole (to copy into --attempt) at any terminal width.
            console.print(f"{what} of {', '.join(runs)}:")
            for case in cases:
                ruled = f"{case.adjudication.verdict} by {case.adjudication.adjudicator}" if case.adjudication else "-"
                console.print(
                    f"{case.attempt_id}  method={case.method}  judge={case.judge_verdict}  adjudicated={ruled}  "
                    f"question: {_short(case.question)}  rationale: {_short(case.judge_rationale)}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
            console.print(f"{len(cases)} {what}")
            return
        if not cases:
            console.print(f"no {what} in {', '.join(runs)}")
            return
        _interactive(store, cases, by=by, overrule=overrule or include_resolved)


def _verdict(text: str) -> Literal["pass", "fail"]:
    value = text.strip().lower()
    if value == "pass":
        return "pass"
    if value == "fail":
        return "fail"
    raise BadInputError(f"--verdict must be pass or fail, got {text!r}")


def _interactive(store: EventStore, cases: list[VerdictCase], *, by: str | None, overrule: bool) -> None:
    from agents.adjudication.models import AdjudicationRequest
    from agents.adjudication.record import record_adjudication
    from agents.adjudication.render import render_case

    adjudicator = by or typer.prompt("your name (recorded as the adjudicator)").strip()
    recorded = skipped = 0
    for index, case in enumerate(cases, start=1):
        console.rule()
        console.print(render_case(case, index=index, total=len(cases)), markup=False, highlight=False)
        choice = typer.prompt("verdict [pass/fail/skip/quit]", default="skip").strip().lower()
        while choice not in ("pass", "fail", "skip", "quit", "p", "f", "s", "q"):
            choice = typer.prompt("please answer pass, fail, skip or quit", default="skip").strip().lower()
        if choice in ("quit", "q"):
            break
        if choice in ("skip", "s"):
            skipped += 1
            continue
        reason = ""
        while not reason.strip():
            reason = typer.prompt("reason (why)")
        event = record_adjudication(
            store,
            AdjudicationRequest(
                attempt_id=case.attempt_id,
                verdict=_verdict("pass" if choice.startswith("p") else "fail"),
                reason=reason,
                adjudicator=adjudicator,
                judgment_id=case.judgment_id,
                overrule=overrule,
            ),
        )
        recorded += 1
        console.print(f"recorded {event.verdict} for {event.attempt_id}")
    console.print(f"{recorded} ruling(s) recorded, {skipped} skipped")
