"""A fingerprint of the projection: a hash over every projected node and relationship.

Order-independent (sorted per-element hashes), so two graphs with the same content have the same
fingerprint however they were built. The log itself (:Event, :LogHead, :ProjectionMeta) is excluded.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from neo4j import Driver

from graph.cypher_files import load_cypher
from graph.hashing import canonical_json


@dataclass(frozen=True)
class Fingerprint:
    digest: str
    nodes: int
    relationships: int
    labels: dict[str, int] = field(default_factory=dict)
    relationship_types: dict[str, int] = field(default_factory=dict)

    def differences(self, other: Fingerprint) -> list[str]:
        """Human-readable differences in counts (the digest may differ with equal counts)."""
        lines = []
        for name in sorted(set(self.labels) | set(other.labels)):
            if self.labels.get(name, 0) != other.labels.get(name, 0):
                lines.append(f"label {name}: {self.labels.get(name, 0)} -> {other.labels.get(name, 0)}")
        for name in sorted(set(self.relationship_types) | set(other.relationship_types)):
            a, b = self.relationship_types.get(name, 0), other.relationship_types.get(name, 0)
            if a != b:
                lines.append(f"relationship {name}: {a} -> {b}")
        if not lines and self.digest != other.digest:
            lines.append("same counts, different properties")
        return lines


def _normalise(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def compute_fingerprint(driver: Driver, database: str = "neo4j") -> Fingerprint:
    element_hashes: list[str] = []
    labels: Counter[str] = Counter()
    rel_types: Counter[str] = Counter()
    n_nodes = n_rels = 0
    with driver.session(database=database) as session:
        for record in session.run(load_cypher("admin/fingerprint_nodes")):
            node_labels = sorted(record["labels"])
            labels.update(node_labels)
            n_nodes += 1
            body = canonical_json({"l": node_labels, "p": _normalise(dict(record["props"]))})
            element_hashes.append(hashlib.sha256(body.encode()).hexdigest())
        for record in session.run(load_cypher("admin/fingerprint_relationships")):
            rel_types[record["type"]] += 1
            n_rels += 1
            body = canonical_json(
                {
                    "t": record["type"],
                    "a": [sorted(record["a_labels"]), record["a_id"]],
                    "b": [sorted(record["b_labels"]), record["b_id"]],
                    "p": _normalise(dict(record["props"])),
                }
            )
            element_hashes.append(hashlib.sha256(body.encode()).hexdigest())
    digest = hashlib.sha256("\n".join(sorted(element_hashes)).encode()).hexdigest()
    return Fingerprint(digest, n_nodes, n_rels, dict(labels), dict(rel_types))
