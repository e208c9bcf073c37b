// $ids: item ids -> their history documents (text left out).
MATCH (i:Item)-[:USES_HISTORY_DOC]->(n:Document) WHERE i.id IN $ids
WITH i.id AS key, n {.*, text: null} AS node
ORDER BY n.id
RETURN collect({key: key, node: node}) AS rows
