"""The answering model's tokenizer for one run (query/model_tokens.py), probed from the answerer role's
endpoint and model: what Read's 3,000-token limit and A-MEM's 5,120-token cap count in."""

from __future__ import annotations

from agents.llm.roles import LLMRoles
from query.model_tokens import TokenizerChoice, probe_tokenizer


def answerer_tokenizer(roles: LLMRoles) -> TokenizerChoice:
    """The probe's choice for the answerer role (the named WordPiece fallback when nothing else works)."""
    settings = roles.settings["answerer"]
    return probe_tokenizer(
        settings.base_url,
        settings.model,
        api_key=settings.resolved_api_key() if settings.configured else "",
        timeout_s=min(settings.timeout_s, 10.0),
    )
