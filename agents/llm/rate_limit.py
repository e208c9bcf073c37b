"""Pacing requests to an endpoint: jittered waits between retries, and a per-endpoint limit on requests in
flight and requests per minute.

An *endpoint* is a base URL and the key sent to it (`endpoint_identity`): every role and every thread of one
process that talks to the same endpoint with the same key shares one `EndpointLimiter`, because a provider's
rate limit applies to the key, not to the role. When roles sharing an endpoint set different limits, the
tightest one holds (`EndpointLimiters.for_settings`). Ray actors are separate processes: each has its own
limiter, so the limits hold per process there.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

from agents.llm.errors import LLMInterruptedError
from agents.llm.settings import LLMRoleSettings, public_url

JitterKind = Literal["full", "decorrelated"]
JITTER_KINDS: tuple[str, ...] = ("full", "decorrelated")
WINDOW_S = 60.0  # the requests-per-minute window
_POLL_S = 0.25  # how often a thread waiting for a free slot looks at the stop flag (a release wakes it at once)


def endpoint_identity(settings: LLMRoleSettings) -> str:
    """The endpoint a role's requests go to: its public URL and a short hash of the key (never the key)."""
    url = public_url(str(settings.base_url)).rstrip("/")
    key = hashlib.sha256(settings.resolved_api_key().encode("utf-8")).hexdigest()[:12]
    return f"{url} key#{key}"


class Backoff:
    """The waits before each retry of one request.

    Without Retry-After: `full` jitter waits a uniform time in [0, min(cap, base x 2^(n-1))] before retry n;
    `decorrelated` waits a uniform time in [base, 3 x the previous wait], capped. With Retry-After, the wait is
    that many seconds plus a uniform share of one base wait (so clients told the same Retry-After do not all
    come back at once), capped by `cap` too: a server asking for longer than the cap is asked again at the cap.
    """

    def __init__(self, kind: JitterKind, base_s: float, cap_s: float, rng: random.Random, lock: threading.Lock):
        self.kind = kind
        self.base_s = base_s
        self.cap_s = cap_s
        self._rng = rng
        self._lock = lock
        self._previous = base_s

    def _uniform(self, low: float, high: float) -> float:
        with self._lock:  # one generator per client, shared by its threads
            return self._rng.uniform(low, high) if high > low else low

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `attempt` (1 for the first retry)."""
        if retry_after is not None:
            wait = min(self.cap_s, retry_after + self._uniform(0.0, self.base_s))
        elif self.kind == "decorrelated":
            wait = min(self.cap_s, self._uniform(self.base_s, self._previous * 3))
        else:
            wait = self._uniform(0.0, min(self.cap_s, self.base_s * (2 ** (attempt - 1))))
        self._previous = max(self.base_s, wait)
        return wait


class EndpointLimiter:
    """At most `concurrency` requests in flight and at most `rpm` requests started in any 60 s window (None: no
    such limit). `slot()` waits for both and says how long it waited. `clock` and `sleep` are injectable so a test
    can drive the per-minute window without waiting a minute."""

    def __init__(
        self,
        identity: str,
        concurrency: int,
        rpm: int | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"endpoint concurrency must be at least 1, not {concurrency}")
        if rpm is not None and rpm < 1:
            raise ValueError(f"endpoint requests per minute must be at least 1, not {rpm}")
        self.identity = identity
        self.concurrency = concurrency
        self.rpm = rpm
        self._clock = clock
        self._sleep = sleep
        self._changed = threading.Condition()
        self._in_flight = 0
        self._waiting = 0  # threads waiting for a free slot
        self._watchers = 0  # threads in wait_until
        self._started: deque[float] = deque()  # start times of the requests of the last window
        self.most_in_flight = 0  # the highest number of requests in flight seen (for benches and tests)

    def tighten(self, concurrency: int, rpm: int | None) -> None:
        """Lower the limits to these where they are tighter."""
        with self._changed:
            self.concurrency = min(self.concurrency, concurrency)
            if rpm is not None:
                self.rpm = rpm if self.rpm is None else min(self.rpm, rpm)

    @property
    def in_flight(self) -> int:
        with self._changed:
            return self._in_flight

    @property
    def waiting(self) -> int:
        """Threads waiting for a free slot now."""
        with self._changed:
            return self._waiting

    def wait_until(self, predicate: Callable[[EndpointLimiter], bool], bound_s: float = 300.0) -> bool:
        """Wait until `predicate(self)` holds (True) or `bound_s` passed (False): for tests and benches that
        need a known state (e.g. "3 threads waiting"), checked whenever a slot is taken, freed or waited for."""
        with self._changed:
            self._watchers += 1
            try:
                return self._changed.wait_for(lambda: predicate(self), timeout=bound_s)
            finally:
                self._watchers -= 1

    def _notify(self) -> None:
        """Wake the threads waiting for a slot or for a state (the lock is held); none waiting: nothing to do."""
        if self._waiting or self._watchers:
            self._changed.notify_all()

    @contextmanager
    def slot(self, stop: threading.Event | None = None) -> Iterator[float]:
        """Hold one of the endpoint's slots while the block runs; yields the seconds waited for it. Raises
        LLMInterruptedError when `stop` is set while waiting."""
        stop = stop or threading.Event()
        started = self._clock()
        with self._changed:
            if self._in_flight >= self.concurrency:
                self._waiting += 1
                self._notify()
                try:
                    while self._in_flight >= self.concurrency:
                        if stop.is_set():
                            raise LLMInterruptedError(
                                f"{self.identity}: interrupted while waiting for a free request slot"
                            )
                        self._changed.wait(_POLL_S)
                finally:
                    self._waiting -= 1
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
            self._notify()
        try:
            self._wait_for_the_window(stop)
            waited = max(0.0, self._clock() - started)
            yield waited
        finally:
            with self._changed:
                self._in_flight -= 1
                self._notify()

    def _wait_for_the_window(self, stop: threading.Event) -> None:
        while True:
            with self._changed:
                if self.rpm is None:
                    return
                now = self._clock()
                while self._started and self._started[0] <= now - WINDOW_S:
                    self._started.popleft()
                if len(self._started) < self.rpm:
                    self._started.append(now)
                    return
                delay = self._started[0] + WINDOW_S - now
            if self._sleep is not None:
                self._sleep(delay)
            else:
                stop.wait(delay)
            if stop.is_set():
                raise LLMInterruptedError(f"{self.identity}: interrupted while waiting under the per-minute limit")


class EndpointLimiters:
    """The limiters of one process's roles, one per endpoint identity."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_endpoint: dict[str, EndpointLimiter] = {}

    def for_settings(self, settings: LLMRoleSettings) -> EndpointLimiter:
        """The limiter of the role's endpoint, tightened to the role's limits when they are lower."""
        identity = endpoint_identity(settings)
        with self._lock:
            limiter = self._by_endpoint.get(identity)
            if limiter is None:
                limiter = EndpointLimiter(identity, settings.endpoint_concurrency, settings.endpoint_rpm)
                self._by_endpoint[identity] = limiter
            else:
                limiter.tighten(settings.endpoint_concurrency, settings.endpoint_rpm)
            return limiter

    def all(self) -> list[EndpointLimiter]:
        with self._lock:
            return list(self._by_endpoint.values())
