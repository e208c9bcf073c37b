"""Opening the Neo4j driver with clear errors when the server is not reachable."""

from __future__ import annotations

from typing import Any

from neo4j import Driver, GraphDatabase
from neo4j.exceptions import AuthError, ServiceUnavailable

from graph.errors import Neo4jUnavailableError
from graph.settings import Neo4jSettings


def open_driver(settings: Neo4jSettings | None = None, verify: bool = True) -> Driver:
    """A driver for the configured server; raises Neo4jUnavailableError saying how to start one."""
    settings = settings or Neo4jSettings()
    auth = (settings.user, settings.password) if settings.password else None
    driver = GraphDatabase.driver(
        settings.effective_uri, auth=auth, max_connection_pool_size=32, notifications_min_severity="OFF"
    )
    if is_routing(settings.effective_uri):
        share_bookmarks(driver)
    if verify:
        try:
            driver.verify_connectivity()
        except (ServiceUnavailable, OSError) as exc:
            driver.close()
            hint = (
                "check NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD"
                if settings.is_external
                else "start the project's server with `./colabench neo4j start`"
            )
            raise Neo4jUnavailableError(f"Neo4j is not reachable at {settings.effective_uri}: {hint}") from exc
        except AuthError as exc:
            driver.close()
            raise Neo4jUnavailableError(
                f"Neo4j at {settings.effective_uri} refused the credentials of NEO4J_USER/NEO4J_PASSWORD"
            ) from exc
    return driver


ROUTING_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc")


def is_routing(uri: str) -> bool:
    """A `neo4j://` URI (a cluster, Aura, or one server through the routing protocol)."""
    return uri.split("://", 1)[0].lower() in ROUTING_SCHEMES


def share_bookmarks(driver: Driver) -> None:
    """Give every session of the driver one bookmark manager, so a read in any later session waits for every
    write this process made (a follower or read replica never answers from before a just-appended event).
    Writes already run as managed transactions (`execute_write`, retried on a leader change)."""
    manager = GraphDatabase.bookmark_manager()
    opened = driver.session

    def session(**config: Any) -> Any:
        config.setdefault("bookmark_manager", manager)
        return opened(**config)

    setattr(driver, "session", session)  # noqa: B010 - an instance attribute shadows the method on purpose
