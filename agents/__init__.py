"""agents room: the writing and running side (memory systems, methods, runs, judging, synthesis, reports).

Importing it finds the memory systems' folders (agents/memory/<system>/declare.py), which register their recipes
with query.recipes, their methods with agents.methods and themselves with agents.memory.registry; so any
process that uses the agents room knows every shipped system by name, without importing an SDK."""

from agents.memory.registry import discover_system_folders

discover_system_folders()
