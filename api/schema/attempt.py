"""Attempt: one item under one run — the evidence trace of rounds, tool calls, answer and verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.values import json_value, string_list

if TYPE_CHECKING:
    from api.schema.item import Item
    from api.schema.judgment import Judgment
    from api.schema.run import Run
    from api.schema.tool_call import ToolCall


@strawberry.type(description="A quality score of one dimension (1-5), from a `quality:<dimension>` judgment.")
class QualityScore:
    dimension: str
    score: float | None
    judgment_id: str


@strawberry.type(description="The rounds, tool calls, answer, verdict and scores of one item under one run.")
class Attempt:
    id: strawberry.ID = strawberry.field(description="<run_id>:<item_id>")
    run_id: str
    item_id: str
    status: str | None
    answer: str | None
    rounds: int | None
    turns: int | None = strawberry.field(description="agent turns, including the final answer turn")
    tokens_in: int | None
    tokens_out: int | None
    seconds: float | None
    error: str | None
    method: str | None
    profile_id: str | None
    finish: str | None = strawberry.field(description="answered, forced_final (budget used up) or empty")
    answer_model: str | None
    answer_prompt_sha256: str | None = strawberry.field(description="SHA-256 of the answering prompt")
    verdict: str | None = strawberry.field(description="the latest accuracy verdict: pass, fail or needs_adjudication")
    flags: list[str] = strawberry.field(
        description="what is odd about the answer: cut_by_length, looks_like_tool_call, not_an_answer"
    )
    exchange: str | None = strawberry.field(
        description="the LLM exchange of the final answer (its request holds the whole conversation): /exchange#<hash>"
    )
    seq: int
    raw_usage: strawberry.Private[Any]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Attempt:
        seconds = node.get("seconds")
        return cls(
            id=strawberry.ID(node["id"]),
            run_id=node.get("run_id") or "",
            item_id=node.get("item_id") or "",
            status=node.get("status"),
            answer=node.get("answer"),
            rounds=node.get("rounds"),
            turns=node.get("turns"),
            tokens_in=node.get("tokens_in"),
            tokens_out=node.get("tokens_out"),
            seconds=float(seconds) if seconds is not None else None,
            error=node.get("error"),
            method=node.get("method"),
            profile_id=node.get("profile_id"),
            finish=node.get("finish"),
            answer_model=node.get("answer_model"),
            answer_prompt_sha256=node.get("answer_prompt_sha256"),
            verdict=node.get("verdict"),
            flags=string_list(node.get("flags")),
            exchange=node.get("answer_exchange"),
            seq=int(node.get("seq") or 0),
            raw_usage=node.get("usage"),
        )

    @strawberry.field(description="token and cost accounting of the attempt")
    def usage(self) -> JSON:
        return json_value(self.raw_usage, {})

    @strawberry.field
    async def run(self, info: Info) -> Annotated[Run, strawberry.lazy("api.schema.run")] | None:
        from api.schema.run import Run

        node = await loaders_of(info).node("run").load(self.run_id)
        return Run.from_node(node) if node else None

    @strawberry.field
    async def item(self, info: Info) -> Annotated[Item, strawberry.lazy("api.schema.item")] | None:
        from api.schema.item import Item

        node = await loaders_of(info).node("item").load(self.item_id)
        return Item.from_node(node) if node else None

    @strawberry.field(description="tool calls in round and call order, each with its arguments and results")
    async def tool_calls(self, info: Info) -> list[Annotated[ToolCall, strawberry.lazy("api.schema.tool_call")]]:
        from api.schema.tool_call import ToolCall

        rows = await loaders_of(info).related("attempt_tool_calls").load(str(self.id))
        return [ToolCall.from_node(r["node"]) for r in rows]

    @strawberry.field(description="every judgment of this attempt")
    async def judgments(self, info: Info) -> list[Annotated[Judgment, strawberry.lazy("api.schema.judgment")]]:
        from api.schema.judgment import Judgment

        rows = await loaders_of(info).related("attempt_judgments").load(str(self.id))
        return [Judgment.from_node(r["node"]) for r in rows]

    @strawberry.field(description="quality scores by dimension")
    async def scores(self, info: Info) -> list[QualityScore]:
        rows = await loaders_of(info).related("attempt_judgments").load(str(self.id))
        return [
            QualityScore(
                dimension=str(r["node"]["kind"]).split(":", 1)[1],
                score=float(r["node"]["score"]) if r["node"].get("score") is not None else None,
                judgment_id=r["node"]["id"],
            )
            for r in rows
            if str(r["node"].get("kind") or "").startswith("quality:")
        ]
