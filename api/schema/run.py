"""Run: one evaluation run of one method over a dataset, with its configuration and attempts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry
from strawberry.scalars import JSON

from api.schema.context import Info, loaders_of
from api.schema.values import json_value, page_size, string_list

if TYPE_CHECKING:
    from api.schema.attempt import Attempt


@strawberry.type(description="An evaluation run of one method: models, prompt hashes, seeds, config and attempts.")
class Run:
    id: strawberry.ID
    method: str
    dataset: str | None
    batch_id: str | None = strawberry.field(description="runs started together (one per method) share it")
    status: str | None
    started_seq: int | None
    dataset_fingerprint: str | None = strawberry.field(description="log head hash of the dataset the run read")
    dataset_head_seq: int | None
    finished_seq: int | None
    item_ids: list[str]
    n_items: int | None
    seq: int
    raw: strawberry.Private[dict[str, Any]]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Run:
        return cls(
            id=strawberry.ID(node["id"]),
            method=node.get("method") or "",
            dataset=node.get("dataset"),
            batch_id=node.get("batch_id"),
            status=node.get("status"),
            started_seq=node.get("started_seq"),
            dataset_fingerprint=node.get("dataset_fingerprint"),
            dataset_head_seq=node.get("dataset_head_seq"),
            finished_seq=node.get("finished_seq"),
            item_ids=string_list(node.get("item_ids")),
            n_items=node.get("n_items"),
            seq=int(node.get("seq") or 0),
            raw=node,
        )

    @strawberry.field
    def config(self) -> JSON:
        return json_value(self.raw.get("config"), {})

    @strawberry.field(description="models by role (answerer, judge ...)")
    def models(self) -> JSON:
        return json_value(self.raw.get("models"), {})

    @strawberry.field(description="SHA-256 of every prompt the run used, by prompt name")
    def prompt_hashes(self) -> JSON:
        return json_value(self.raw.get("prompt_hashes"), {})

    @strawberry.field
    def seeds(self) -> JSON:
        return json_value(self.raw.get("seeds"), {})

    @strawberry.field(description="versions of the code and libraries that made the run")
    def versions(self) -> JSON:
        return json_value(self.raw.get("versions"), {})

    @strawberry.field(description="counts the run recorded when it finished")
    def counts(self) -> JSON:
        return json_value(self.raw.get("counts"), {})

    @strawberry.field(description="tokens, cost and cache hits of the run")
    def usage(self) -> JSON:
        return json_value(self.raw.get("usage"), {})

    @strawberry.field(description="attempts by item id")
    async def attempts(
        self, info: Info, first: int = 200
    ) -> list[Annotated[Attempt, strawberry.lazy("api.schema.attempt")]]:
        from api.schema.attempt import Attempt

        size = page_size(first, "Run.attempts")
        rows = await loaders_of(info).related("run_attempts").load(str(self.id))
        return [Attempt.from_node(r["node"]) for r in rows[:size]]

    @strawberry.field
    async def attempt_count(self, info: Info) -> int:
        return len(await loaders_of(info).related("run_attempts").load(str(self.id)))
