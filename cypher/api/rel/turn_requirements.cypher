// $ids: turn ids -> the answer requirements that cite each turn as a user statement.
MATCH (n:Requirement)-[:STATED_IN]->(t:Turn) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
ORDER BY n.item_id, n.ordinal
RETURN collect({key: key, node: node}) AS rows
