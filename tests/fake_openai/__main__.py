"""Run the fake server as a process: `python -m tests.fake_openai [--port 0] [--latency-ms 0] [--greedy]
[--synthesis]` (`--synthesis`: the scripted synthesis roles of tests/fake_openai/synthesis_script.py).

Prints `READY <base_url>` on stdout once listening, then serves until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from tests.fake_openai.policy import AutoPolicy
from tests.fake_openai.server import FakeOpenAI


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--greedy", action="store_true", help="never answer while tools are offered")
    parser.add_argument("--synthesis", action="store_true", help="play the synthesis roles")
    args = parser.parse_args()
    if args.synthesis:
        from tests.fake_openai.synthesis_script import SynthesisPolicy

        responder = SynthesisPolicy()
    else:
        responder = AutoPolicy(greedy=args.greedy)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with FakeOpenAI(responder, latency_s=args.latency_ms / 1000, port=args.port) as fake:
        print(f"READY {fake.base_url}", flush=True)
        stop.wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
