"""A-MEM (PyPI `a-mem`, module `agentic_memory`) wired to the project: its LLM calls go through the project's
LLM client (`controller`), its Chroma retriever embeds with the project's encoder and is rebuilt from the
evidence graph (`notes`). The memory system itself is agents.memory.amem.system."""
