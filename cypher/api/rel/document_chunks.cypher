// $ids: document ids -> their chunks in order (embeddings left out).
MATCH (d:Document)-[:HAS_CHUNK]->(n:Chunk) WHERE d.id IN $ids
WITH d.id AS key, n {.*, embedding: null} AS node
ORDER BY n.ordinal
RETURN collect({key: key, node: node}) AS rows
