"""`python -m agents.memory.adapter_server [--host H] [--port P] [--test-mode MODE]`: serve the reference
memory adapter (an in-process keyword memory, lost when it stops)."""

from __future__ import annotations

import argparse

from agents.memory.adapter_server.app import TEST_MODES, create_app
from agents.memory.adapter_server.serve import serve_forever


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agents.memory.adapter_server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--test-mode", choices=TEST_MODES, default="none", help="misbehave on purpose (app.py)")
    args = parser.parse_args(argv)
    serve_forever(create_app(test_mode=args.test_mode), args.host, args.port)


if __name__ == "__main__":
    main()
