"""Where the suite's files are, for test modules at any depth of tests/ (a path worked out from a module's own
`__file__` breaks when the module moves to another folder)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"
MINI_BUNDLE = FIXTURES / "mini_bundle"
