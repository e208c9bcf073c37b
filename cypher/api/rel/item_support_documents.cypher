// $ids: item ids -> their support documents (text left out).
MATCH (i:Item)-[:SUPPORTED_BY]->(n:Document) WHERE i.id IN $ids
WITH i.id AS key, n {.*, text: null} AS node
ORDER BY n.id
RETURN collect({key: key, node: node}) AS rows
