"""Item: a benchmark question with its answer requirements, support and history documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import strawberry

from api.schema.context import Info, context_of, loaders_of
from api.schema.values import string_list

if TYPE_CHECKING:
    from api.schema.attempt import Attempt
    from api.schema.document import Document
    from api.schema.profile import Profile
    from api.schema.requirement import Requirement


@strawberry.type(description="An item this one was augmented from, and how it was changed.")
class AugmentedFrom:
    direction: str
    item: Annotated[Item, strawberry.lazy("api.schema.item")]


@strawberry.type(description="A benchmark item: a request of a profile, its answer requirements and gold documents.")
class Item:
    id: strawberry.ID
    profile_id: str
    dataset: str
    question: str
    asked_at: str | None
    question_type: str | None
    batch: str | None
    labels: list[str]
    verifications: list[str] = strawberry.field(description="gate:verdict entries of ItemVerified events")
    seq: int
    gold_answer: strawberry.Private[str | None]

    @classmethod
    def from_node(cls, node: dict[str, Any]) -> Item:
        return cls(
            id=strawberry.ID(node["id"]),
            profile_id=node["profile_id"],
            dataset=node.get("dataset") or "",
            question=node["question"],
            asked_at=node.get("asked_at"),
            question_type=node.get("question_type"),
            batch=node.get("batch"),
            labels=string_list(node.get("labels")),
            verifications=string_list(node.get("verifications")),
            seq=int(node.get("seq") or 0),
            gold_answer=node.get("reference_answer"),
        )

    @strawberry.field(
        description="the reference answer (gold): only for requests with the API token, or when the server is "
        "configured to reveal reference answers; otherwise this field is an error"
    )
    def reference_answer(self, info: Info) -> str | None:
        context_of(info).require_gold_access("the reference answer")
        return self.gold_answer

    @strawberry.field
    async def profile(self, info: Info) -> Annotated[Profile, strawberry.lazy("api.schema.profile")] | None:
        from api.schema.profile import Profile

        node = await loaders_of(info).node("profile").load(self.profile_id)
        return Profile.from_node(node) if node else None

    @strawberry.field(description="answer requirements e = (r, U, F, K, a) in order")
    async def requirements(self, info: Info) -> list[Annotated[Requirement, strawberry.lazy("api.schema.requirement")]]:
        from api.schema.requirement import Requirement

        rows = await loaders_of(info).related("item_requirements").load(str(self.id))
        return [Requirement.from_node(r["node"]) for r in rows]

    @strawberry.field(description="gold support documents (never exposed in the profile's history)")
    async def support_documents(self, info: Info) -> list[Annotated[Document, strawberry.lazy("api.schema.document")]]:
        from api.schema.document import Document

        rows = await loaders_of(info).related("item_support_documents").load(str(self.id))
        return [Document.from_node(r["node"]) for r in rows]

    @strawberry.field(description="documents the profile's history exposed that the item relies on")
    async def history_documents(self, info: Info) -> list[Annotated[Document, strawberry.lazy("api.schema.document")]]:
        from api.schema.document import Document

        rows = await loaders_of(info).related("item_history_documents").load(str(self.id))
        return [Document.from_node(r["node"]) for r in rows]

    @strawberry.field(description="items this one was augmented from")
    async def augmented_from(self, info: Info) -> list[AugmentedFrom]:
        rows = await loaders_of(info).related("item_augmented_from").load(str(self.id))
        return [AugmentedFrom(direction=r["rel"].get("direction") or "", item=Item.from_node(r["node"])) for r in rows]

    @strawberry.field(description="attempts of evaluation runs on this item")
    async def attempts(self, info: Info) -> list[Annotated[Attempt, strawberry.lazy("api.schema.attempt")]]:
        from api.schema.attempt import Attempt

        rows = await loaders_of(info).related("item_attempts").load(str(self.id))
        return [Attempt.from_node(r["node"]) for r in rows]
