// $ids: ids of :State nodes; one row per node found (embeddings left out).
MATCH (n:State) WHERE n.id IN $ids
WITH n.id AS key, n {.*, embedding: null} AS node
RETURN collect({key: key, node: node}) AS rows
