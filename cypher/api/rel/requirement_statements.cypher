// $ids: requirement ids -> the user turns stating them (verbatim statements U).
MATCH (r:Requirement)-[:STATED_IN]->(n:Turn) WHERE r.id IN $ids
WITH r.id AS key, n {.*} AS node
ORDER BY n.seq
RETURN collect({key: key, node: node}) AS rows
