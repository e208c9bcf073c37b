"""`colabench synth`: build a new ColaBench dataset from the frozen KB with the synthesis roles (Stage 0 document
links, Stage I profiles, Stage II public dialogue, Stage III items, augmentation), then export it as a bundle
that `check` accepts and `run` evaluates, with a synthesis report. Resumable per stage."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from cli.context import console, err_console, expected_errors, open_store
from cli.endpoint_check import check_endpoints, endpoint_check_option
from cli.exit_codes import EXIT_ENDPOINT_OR_PARTIAL, EXIT_ERROR
from cli.ray_options import check_executor, ray_address_option
from graph.errors import BadInputError, UsageError

app = typer.Typer(rich_markup_mode=None, no_args_is_help=True, add_completion=False)

NO_LLM = (
    "[yellow]no LLM configured for the synthesis role[/] (set COLABENCH_LLM_SYNTHESIS_BASE_URL or "
    "COLABENCH_LLM_BASE_URL, or base_url in the \\[llm] / \\[llm.synthesis] table of colabench.toml): "
    "nothing was synthesized. `./colabench synth export` and `synth report` work without one."
)
ALL_HELP = "Every stage in order (each resumes where the log stops), then the bundle and the report."


def _stage_sets() -> dict[str, tuple[list[str], str]]:
    """`synth <name>` -> (the stages it runs, its help): one per registered stage (agents/synthesis/registry.py,
    plug-ins included), and `all`. A plug-in that fails to import leaves the shipped stages, and fails the run."""
    from agents.synthesis.registry import STAGES, discover_stages, synthesis_stages
    from graph.errors import PluginLoadError

    try:
        stages = synthesis_stages()
    except PluginLoadError:
        discover_stages()
        stages = sorted(STAGES.values(), key=lambda s: s.order)
    return {
        **{stage.name: ([stage.name], stage.help) for stage in stages},
        "all": ([stage.name for stage in stages], ALL_HELP),
    }


def _caps(values: list[str]) -> dict[str, int]:
    caps: dict[str, int] = {}
    for value in values:
        role, sep, number = value.partition("=")
        if not sep or not number.strip().isdigit():
            raise BadInputError(f"--cap {value!r}: expected ROLE=TOKENS, e.g. blind_solver=24576")
        caps[role.strip()] = int(number)
    return caps


def _default_out(dataset: str) -> Path:
    from graph.paths import data_dir

    return data_dir() / "synth" / dataset


def _synthesize(stages: list[str], **options: Any) -> None:
    from contextlib import ExitStack

    from pydantic import ValidationError

    from agents.llm.roles import LLMRoles
    from agents.prompts.registry import PromptSet
    from agents.synthesis.config import SynthesisConfig
    from agents.synthesis.context import SynthContext
    from agents.synthesis.pipeline import run_stages
    from agents.synthesis.stage_web import OFF_NOTE
    from agents.synthesis.web import WebSettings
    from cli.progress_lines import phase_progress
    from ingest.bundle.shape import ShapeTarget
    from query.retriever import Retriever

    try:
        target = ShapeTarget(
            profiles=options["profiles"],
            items_per_profile=options["items_per_profile"],
            single_fact_share=options["single_share"],
            support_docs_per_item=options["support_docs"],
            augmented_per_initial=options["augment_ratio"],
        )
        config = SynthesisConfig(
            dataset=options["dataset"],
            seed=options["seed"],
            kb_sources=tuple(s.strip() for s in (options["kb"] or "").split(",") if s.strip() and s.strip() != "all"),
            seed_docs=options["seed_docs"],
            profiles=target.profiles,
            topics_per_profile=options["topics"] or min(20, target.initial_per_profile()),
            max_user_turns=options["turns"],
            max_revisions=options["max_revisions"],
            augment_per_item=max(1, math.ceil(target.augmented_per_initial)),
            target=target,
            caps=_caps(options["cap"] or []),
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise UsageError(f"invalid synthesis settings: {problems}") from exc
    for problem in target.reachable():
        err_console.print(f"[yellow]shape target[/]: {problem}")
    executor, ray_address = options["executor"], options["ray_address"]
    check_executor(executor, ray_address, "threads")
    prompts = PromptSet.from_config(options["prompt"] or [])
    replay = _replay_endpoint(options.get("replay"), executor)
    synthesis_role: dict[str, Any] = {"temperature": config.temperature}
    if replay is not None:
        # Recorded replies answer only the requests they were recorded for: the request is fixed here (no
        # top_p, seed or provider extras from the environment) and the response cache stays out of the way.
        synthesis_role.update(
            base_url=replay.base_url, model=replay.model, top_p=None, seed=None, extra_body={}, api_key="replay"
        )
    roles = LLMRoles(overrides={"synthesis": synthesis_role}, cache_mode="off" if replay is not None else None)
    web_settings = WebSettings()
    web = web_settings if web_settings.enabled and replay is None else None
    if replay is not None:
        replay.__enter__()
        console.print(
            f"replaying recorded replies from {options['replay']} (model {replay.model}); the web stage is off"
        )
    try:
        if not roles.configured("synthesis"):
            err_console.print(NO_LLM)
            return
        check_endpoints(roles, ["synthesis"], not options["no_endpoint_check"])
        with open_store() as store, ExitStack() as stack:
            assert store.encoder is not None
            ctx = SynthContext(
                store=store,
                retriever=Retriever(store.driver, store.encoder),
                roles=roles,
                prompts=prompts,
                config=config,
                concurrency=options["concurrency"],
                web=web,
            )
            pool = None
            if executor == "ray":
                from agents.synthesis.ray_units import RayUnits

                pool = stack.enter_context(
                    RayUnits(
                        workers=options["concurrency"],
                        roles=roles,
                        prompts=prompts,
                        config=config,
                        address=ray_address,
                        web=web,
                    )
                )
                ctx.remote = pool
                where = f"the Ray cluster at {ray_address}" if ray_address else "a local Ray instance"
                console.print(f"units run in {pool.workers} Ray actor(s) on {where}")
            if "web" in stages and web is None:
                console.print(f"web: {OFF_NOTE}")
            with phase_progress() as progress:
                results = run_stages(ctx, stages, progress)
            if pool is not None:
                shares = ", ".join(str(n) for n in pool.units_per_actor) or "none"
                console.print(f"Ray actors ran {sum(pool.units_per_actor)} unit(s); per actor: {shares}")
            for result in results:
                counts = result["counts"]
                usage = result["usage"]["total"]
                console.print(
                    f"[bold]{result['stage']}[/]: "
                    + ", ".join(f"{k} {v}" for k, v in counts.items())
                    + f"; LLM calls {usage['calls']} ({usage['endpoint_requests']} sent), "
                    f"tokens {usage['tokens_in']:,} in / {usage['tokens_out']:,} out"
                )
            from agents.llm.accounting import UsageLedger
            from agents.llm.traffic import traffic_lines

            spent = UsageLedger()
            for result in results:
                spent.merge(UsageLedger.from_dict(result["usage"]))
            for line in traffic_lines(spent.as_dict()):
                console.print(line, highlight=False, markup=False, soft_wrap=True)
            _export_and_report(
                store, config.dataset, options["out"] or _default_out(config.dataset), options["documents"]
            )
    finally:
        roles.close()
        if replay is not None:
            replay.__exit__(None, None, None)
            if replay.misses:
                err_console.print(
                    f"[red]{len(replay.misses)} request(s) had no recorded reply[/] (the first: "
                    f"{replay.misses[0][0]}, role {replay.misses[0][1]}): the replies file does not match this "
                    "graph or these settings"
                )


def _replay_endpoint(path: Path | None, executor: str) -> Any:
    """The local endpoint serving a replies file (`--replay`), not started yet; None without one."""
    if path is None:
        return None
    from agents.synthesis.replay import RecordedReplies, ReplayServer

    if executor != "threads":
        raise UsageError("--replay serves recorded replies from this process: use it with --executor threads")
    if not Path(path).is_file():
        raise UsageError(f"--replay {path}: no such file")
    replies = RecordedReplies.load(Path(path))
    return ReplayServer(replies, replies.model)


def _export_and_report(store: Any, dataset: str, out: Path, documents: str) -> None:
    from agents.synthesis.export import export_bundle
    from agents.synthesis.summary import summary_markdown, synthesis_summary

    summary = export_bundle(store, dataset, out, documents=documents)  # type: ignore[arg-type]
    figures = synthesis_summary(store, dataset, with_reasons=True)
    (out / "synthesis_report.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    (out / "synthesis_report.md").write_text(summary_markdown(figures), encoding="utf-8")
    _print_summary(synthesis_summary(store, dataset))
    counts = ", ".join(f"{v} {k}" for k, v in summary.counts.items())
    console.print(f"bundle written to {out} ({counts}); report: {out / 'synthesis_report.md'}")
    if summary.problems:
        err_console.print(f"[red]the bundle does not pass check ({len(summary.problems)} problems):[/]")
        for problem in summary.problems[:20]:
            err_console.print(f"  {problem}")
    if not summary.counts.get("items"):
        # an empty bundle is never success: every unit was rejected or dropped, or no stage made items
        err_console.print(
            f"[red]the bundle holds no items[/]: no unit was accepted as an item (the reasons are in "
            f"{out / 'synthesis_report.md'}); there is nothing to run"
        )
        raise typer.Exit(EXIT_ENDPOINT_OR_PARTIAL)
    if summary.problems:
        raise typer.Exit(EXIT_ERROR)
    console.print(f"check: ok. Next: ./colabench run --dataset {dataset} --methods MEMKB,HYBRID")


def _print_summary(figures: dict[str, Any]) -> None:
    table = Table(title=f"synthesis {figures['dataset']}")
    for column in ("stage", "closed", "accepted", "after revision", "rejected", "dropped", "LLM calls"):
        table.add_column(column, justify="left" if column == "stage" else "right")
    for stage, s in figures["stages"].items():
        o = s["outcomes"]
        table.add_row(
            stage,
            str(s["units_closed"]),
            str(o.get("accepted", 0)),
            str(s["admitted"].get("after_revision", 0)),
            str(o.get("rejected", 0)),
            str(o.get("dropped", 0)),
            str(int(s["usage"].get("calls", 0))),
        )
    console.print(table)
    for gate, verdicts in figures["gates"].items():
        console.print(f"gate {gate}: " + ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())))
    shape = figures.get("shape")
    if shape:
        console.print(
            f"shape (target: {shape['target_source']}): "
            + "; ".join(f"{r['measure']} {r['produced']} (target {r['target']})" for r in shape["comparison"])
        )
        for warning in [*shape["unreachable"], *shape["warnings"]]:
            err_console.print(f"[yellow]shape[/]: {warning}")


def _stage_command(name: str, stages: list[str], help_text: str) -> None:
    @expected_errors
    def command(
        dataset: str = typer.Option(..., "--dataset", help="name of the dataset to build (new, or one to resume)"),
        kb: str = typer.Option("all", "--kb", help="Document.source values of the KB (comma-separated) or all"),
        profiles: int = typer.Option(10, "--profiles", min=1, help="target: profiles (paper: 10)"),
        items_per_profile: float = typer.Option(
            34.9, "--items-per-profile", min=0.1, help="target: items per profile, initial + augmented (paper: 34.9)"
        ),
        single_share: float = typer.Option(
            1 / 3, "--single-share", min=0.0, max=1.0, help="target: share of single-fact items (paper: about 1/3)"
        ),
        support_docs: int = typer.Option(
            1, "--support-docs", min=1, help="target: support documents per item, 1 to 5 (paper: 1)"
        ),
        augment_ratio: float = typer.Option(
            1.0, "--augment-ratio", min=0.0, max=5.0, help="target: augmented items per initial item (ours: 1)"
        ),
        seed: int = typer.Option(0, "--seed", help="sampling seed (documents, profile slots, topics)"),
        seed_docs: int = typer.Option(4, "--seed-docs", min=1, help="stage 0: seed documents to link"),
        topics: int = typer.Option(
            None, "--topics", min=1, help="topics per profile (default: from the targets, one initial item each)"
        ),
        turns: int = typer.Option(3, "--turns", min=1, help="user turns per session at most"),
        max_revisions: int = typer.Option(1, "--max-revisions", min=0, help="revisions before a draft is dropped"),
        cap: list[str] = typer.Option(None, "--cap", help="ROLE=TOKENS output cap (repeatable)"),
        prompt: list[str] = typer.Option(None, "--prompt", help="NAME=PATH[@SHA256]: a prompt file (repeatable)"),
        concurrency: int = typer.Option(
            1, "--concurrency", min=1, max=64, help="units in flight (with --executor ray: the actors)"
        ),
        executor: str = typer.Option(
            "threads", "--executor", metavar="threads|ray",
            help="where units run: this process's threads, or Ray actors (an optional extra: COLABENCH_RAY=1 "
            "./colabench synth ...)",
        ),
        ray_address: str = ray_address_option(),
        out: Path = typer.Option(None, "--out", help="bundle folder (default .data/synth/<dataset>)"),
        documents: str = typer.Option("referenced", "--documents", help="referenced | kb: documents in the bundle"),
        no_endpoint_check: bool = endpoint_check_option(),
        replay: Path = typer.Option(
            None, "--replay", help="a replies file (agents/synthesis/replay.py): the synthesis role answers from "
            "these recorded replies on a local endpoint, offline (how the bundled synth-sample is rebuilt)",
        ),
    ) -> None:
        if documents not in ("referenced", "kb"):
            raise BadInputError(f"--documents {documents!r}: expected referenced or kb")
        _synthesize(
            stages if name != "all" else list(_stage_sets()["all"][0]),
            dataset=dataset,
            kb=kb,
            profiles=profiles,
            items_per_profile=items_per_profile,
            single_share=single_share,
            support_docs=support_docs,
            augment_ratio=augment_ratio,
            seed=seed,
            seed_docs=seed_docs,
            topics=topics,
            turns=turns,
            max_revisions=max_revisions,
            cap=cap,
            prompt=prompt,
            concurrency=concurrency,
            executor=executor,
            ray_address=ray_address,
            out=out,
            documents=documents,
            no_endpoint_check=no_endpoint_check,
            replay=replay,
        )

    command.__doc__ = help_text
    app.command(name)(command)


for _name, (_stages, _help) in _stage_sets().items():
    _stage_command(_name, _stages, _help)


@app.command("export")
@expected_errors
def export(
    dataset: str = typer.Option(..., "--dataset", help="a synthesized dataset"),
    out: Path = typer.Option(None, "--out", help="bundle folder (default .data/synth/<dataset>)"),
    documents: str = typer.Option("referenced", "--documents", help="referenced | kb"),
) -> None:
    """Write a synthesized dataset as a bundle (no LLM needed) and check it."""
    if documents not in ("referenced", "kb"):
        raise BadInputError(f"--documents {documents!r}: expected referenced or kb")
    with open_store(with_encoder=False) as store:
        _export_and_report(store, dataset, out or _default_out(dataset), documents)


@app.command("report")
@expected_errors
def report(
    dataset: str = typer.Option(..., "--dataset", help="a synthesized dataset"),
    as_json: bool = typer.Option(False, "--json", help="print the figures as JSON (no rejection reasons)"),
) -> None:
    """Acceptance per stage and gate, and LLM calls, tokens and cost per stage and per accepted item."""
    from agents.synthesis.summary import synthesis_summary

    with open_store(with_encoder=False) as store:
        figures = synthesis_summary(store, dataset)
        if not any(s["units_closed"] for s in figures["stages"].values()):
            raise UsageError(f"no synthesis of dataset {dataset!r} in the graph")
        if as_json:
            console.print_json(json.dumps(figures))
        else:
            _print_summary(figures)
