"""What the graph holds of an attempt's verdicts, read back for the judges that need an earlier one."""

from __future__ import annotations

from graph.cypher_files import load_cypher
from graph.store import EventStore


def latest_accuracy(store: EventStore, attempt_id: str) -> tuple[str | None, str]:
    """(verdict, rationale) of the attempt's latest accuracy judgment, or (None, "")."""
    with store.driver.session(database=store.database) as session:
        record = session.run(load_cypher("agents/accuracy_rationale"), attempt_id=attempt_id).single()
    if record is None:
        return None, ""
    return record["verdict"], str(record["rationale"] or "")
