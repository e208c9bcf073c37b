"""The retrieval-line evaluation (no LLM): datasets and their gold, metrics, the runner and its report."""
