"""A scripted OpenAI-compatible HTTP server for tests and benchmarks (real HTTP on loopback, so the real
openai SDK client code runs). See `server.FakeOpenAI` and `policy.AutoPolicy`."""

from tests.fake_openai.server import FakeOpenAI, Fault, Reply

__all__ = ["FakeOpenAI", "Fault", "Reply"]
