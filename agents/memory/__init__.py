"""The writing side of memory systems: a registry (raw turns, Mem0, Graphiti, A-MEM), the pair-by-pair build
every LLM-built system shares, and the state summary S(H) of MemKB. Readers live in query/."""

from agents.memory.errors import MemoryBackendError, MemorySystemError, MemoryWriteError, UnknownMemorySystemError
from agents.memory.pairs import HistoryPair, history_pairs
from agents.memory.prepare import open_memory_system, prepare_memory
from agents.memory.registry import (
    BuildContext,
    BuildReport,
    MemorySystem,
    get_memory_system,
    memory_system_names,
    register_memory_system,
)

__all__ = [
    "BuildContext",
    "BuildReport",
    "HistoryPair",
    "MemoryBackendError",
    "MemorySystem",
    "MemorySystemError",
    "MemoryWriteError",
    "UnknownMemorySystemError",
    "get_memory_system",
    "history_pairs",
    "memory_system_names",
    "open_memory_system",
    "prepare_memory",
    "register_memory_system",
]
