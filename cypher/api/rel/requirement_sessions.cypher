// $ids: requirement ids -> the sessions given as their evidence.
MATCH (r:Requirement)-[:EVIDENCED_IN]->(n:Session) WHERE r.id IN $ids
WITH r.id AS key, n {.*} AS node
ORDER BY n.ordinal
RETURN collect({key: key, node: node}) AS rows
