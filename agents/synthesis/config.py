"""Settings of one synthesis: sizes, seed, per-role output caps (paper App. A.3) and revision budget."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ingest.bundle.shape import ShapeTarget

# Per-role output caps in tokens. The paper gives the profile builder (Director) 16,384, the question writer
# 8,192, the blind solver and the final verifier 24,576 and the comparator 16,384; the other roles are ours.
DEFAULT_CAPS: dict[str, int] = {
    "linker": 4096,
    "web": 2048,
    "director": 16384,
    "reviewer": 8192,
    "simulator": 4096,
    "disclosure_checker": 2048,
    "assistant": 4096,
    "builder": 16384,
    "question_writer": 8192,
    "blind_solver": 24576,
    "comparator": 16384,
    "verifier": 24576,
    "augmenter": 16384,
}
ROLE_NAMES: tuple[str, ...] = tuple(DEFAULT_CAPS)


class SynthesisConfig(BaseModel):
    """What a synthesis is asked to do. Recorded in SynthesisStarted; resuming needs the same values."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: str = Field(pattern=r"^[A-Za-z0-9_.-]+$", min_length=1, max_length=64)
    seed: int = 0
    kb_sources: tuple[str, ...] = Field(default=(), description="Document.source values of the KB; () = all")
    seed_docs: int = Field(default=4, ge=1, le=10_000, description="stage 0: seed documents to link")
    links_per_doc: int = Field(default=3, ge=1, le=20)
    web_queries_per_doc: int = Field(default=2, ge=1, le=5, description="stage 0 web: searches per seed document")
    web_results_per_query: int = Field(default=3, ge=1, le=20, description="stage 0 web: results taken per search")
    web_pages_per_doc: int = Field(default=3, ge=1, le=20, description="stage 0 web: pages fetched per seed document")
    profiles: int = Field(default=2, ge=1, le=10_000, description="stage I: new profiles")
    docs_per_profile: int = Field(default=3, ge=1, le=20, description="documents the Director grounds facts in")
    topics_per_profile: int = Field(default=2, ge=1, le=20)
    max_user_turns: int = Field(default=3, ge=1, le=20, description="stage II: user turns per session at most")
    assistant_tool_rounds: int = Field(default=2, ge=0, le=8)
    candidates_per_item: int = Field(default=5, ge=1, le=20, description="stage III: candidate support documents")
    max_revisions: int = Field(default=1, ge=0, le=5, description="revisions of a rejected draft before dropping it")
    augment_per_item: int = Field(default=1, ge=0, le=5)
    blind_reads: int = Field(
        default=4, ge=1, le=50, description="History Gate: Read calls (100 lines / 3,000 tokens each) of the support"
    )
    # The shape aimed at (ingest/bundle/shape.py; `synth` defaults to the paper's proportions): when set, stage III
    # builds `initial_single_share()` of its items single-fact and the rest multi-fact, and the augmentation
    # derives `augmented_per_initial` items per initial item; None: the Builder chooses, `augment_per_item` each.
    target: ShapeTarget | None = None
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    caps: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_CAPS))

    @field_validator("caps")
    @classmethod
    def _known_caps(cls, value: dict[str, int]) -> dict[str, int]:
        unknown = set(value) - set(DEFAULT_CAPS)
        if unknown:
            raise ValueError(f"unknown synthesis roles in caps: {sorted(unknown)}; roles are {', '.join(ROLE_NAMES)}")
        bad = {k: v for k, v in value.items() if not isinstance(v, int) or v < 1 or v > 200_000}
        if bad:
            raise ValueError(f"caps must be whole numbers of tokens in 1..200000: {bad}")
        return {**DEFAULT_CAPS, **value}

    @property
    def support_docs(self) -> int:
        """Support documents per item the Builder plans: the target's (1 without a target, the paper's)."""
        return self.target.support_docs_per_item if self.target is not None else 1

    @property
    def synthesis_id(self) -> str:
        return f"synth-{self.dataset}"

    def record(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
