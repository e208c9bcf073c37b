"""Opening the Neo4j driver with clear errors when the server is not reachable."""

from __future__ import annotations

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
