"""Answering methods: which tools (bound to which retrieval recipes) an agent gets, and what memory it needs."""

from agents.methods.registry import (
    METHODS,
    MethodSpec,
    ToolBinding,
    UnknownMethodError,
    get_method,
    parse_methods,
    register_method,
)

__all__ = [
    "METHODS",
    "MethodSpec",
    "ToolBinding",
    "UnknownMethodError",
    "get_method",
    "parse_methods",
    "register_method",
]
