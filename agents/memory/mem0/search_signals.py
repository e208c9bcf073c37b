"""Which of Mem0's search signals this install scores, decided once and kept the same on both stores.

Mem0 2.0.20's `Memory.search` adds up to three signals (`mem0.utils.scoring.score_and_rank`): the store's
semantic score, a BM25 score from the store's `keyword_search` (queries lemmatised with spaCy), and an entity
boost from its entity index (entities found with spaCy's `en_core_web_sm`), divided by the maximum the active
signals allow. The paper ran Mem0's default install on a local Qdrant:

- BM25: Mem0's Qdrant store scores it only through fastembed's `Qdrant/bm25` model. fastembed is not in
  `mem0ai`'s default dependencies (it is in the `extras` extra) and the model is a hub download, so on the
  default install Qdrant's `keyword_search` returns None. The graph store's returns None too.
- Entity boost: spaCy is in Mem0's `nlp` extra and `en_core_web_sm` is not on the package index (Mem0 would
  download it). Without it Mem0 finds no entities (no boost) and does not lemmatise.

So the default install scores semantic only, on either store. If spaCy is importable, Mem0's own model loader
is told the model failed to load (no download is tried, and both stores rank alike); either way the result is
a labelled deviation in the run record and the report.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from pydantic import BaseModel, ConfigDict

SPACY_MODEL = "en_core_web_sm"
ENTITY_BOOST_OFF = f"mem0 entity boost: off, {SPACY_MODEL} not installable offline"
BM25_OFF = (
    "mem0 BM25 keyword scoring: off, as on Mem0's local Qdrant of the default install (no fastembed, whose "
    "Qdrant/bm25 model is a hub download); Mem0 scores semantic similarity only"
)


class SearchSignal(BaseModel):
    """One signal of Mem0's hybrid search: whether it scores, and why."""

    model_config = ConfigDict(frozen=True)

    active: bool
    reason: str


class Mem0SearchSignals(BaseModel):
    """The signals Mem0's search scores in this process (the same on the graph store and on Qdrant)."""

    model_config = ConfigDict(frozen=True)

    semantic: SearchSignal
    bm25: SearchSignal
    entity_boost: SearchSignal

    def deviations(self) -> list[str]:
        """The labelled deviations from Mem0's full hybrid search (one line each, for the run record and report)."""
        return [s.reason for s in (self.bm25, self.entity_boost) if not s.active]

    def record(self) -> dict[str, Any]:
        return self.model_dump()


def _importable(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _spacy_model_installed() -> bool:
    if not _importable("spacy"):
        return False
    import spacy

    return bool(spacy.util.is_package(SPACY_MODEL))


def detect_search_signals() -> Mem0SearchSignals:
    """What this install gives Mem0's search (no model is loaded, nothing is downloaded)."""
    bm25_reason = BM25_OFF
    if _importable("fastembed"):
        # Mem0's Qdrant would try fastembed's model here; the graph store has no BM25 of that model.
        bm25_reason = (
            "mem0 BM25 keyword scoring: off on the graph store; fastembed is installed, so Mem0's own Qdrant "
            "might score BM25 with it (the paper's default install has no fastembed)"
        )
    entity_reason = ENTITY_BOOST_OFF
    if _spacy_model_installed():
        entity_reason = (
            f"mem0 entity boost: off; {SPACY_MODEL} is installed but the graph store keeps no entity index, "
            "so it is turned off for every store alike"
        )
    return Mem0SearchSignals(
        semantic=SearchSignal(active=True, reason="mem0 semantic score: cosine, as Mem0's Qdrant store reports it"),
        bm25=SearchSignal(active=False, reason=bm25_reason),
        entity_boost=SearchSignal(active=False, reason=entity_reason),
    )


def align_spacy_with_signals() -> None:
    """Keep Mem0 from loading (or downloading) spaCy's model: entities and lemmas off, as the signals say.

    Without spaCy Mem0's loader already fails on its own; with spaCy but no model it would try a download."""
    if not _importable("spacy"):
        return
    from mem0.utils import spacy_models

    spacy_models._load_failed_full = True
    spacy_models._load_failed_lemma = True
