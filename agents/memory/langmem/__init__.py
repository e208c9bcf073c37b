"""LangMem (langmem) as a memory system: declare.py registers it; system.py holds it."""
