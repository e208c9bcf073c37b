// $ids: requirement ids -> the personal conditions (facts F) they use.
MATCH (r:Requirement)-[:USES_FACT]->(n:Fact) WHERE r.id IN $ids
WITH r.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
