// $ids: document ids -> the items that list each document as a history document.
MATCH (n:Item)-[:USES_HISTORY_DOC]->(d:Document) WHERE d.id IN $ids
WITH d.id AS key, n {.*} AS node
ORDER BY n.id
RETURN collect({key: key, node: node}) AS rows
