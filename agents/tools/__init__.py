"""The answering agent's tools: definitions (OpenAI function schemas), argument models and execution."""
