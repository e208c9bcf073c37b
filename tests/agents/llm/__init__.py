"""Tests of the LLM layer (agents/llm/) against the fake endpoint of tests/fake_openai/."""
