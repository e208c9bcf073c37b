// $ids: ids of :Item nodes; one row per node found (embeddings left out).
MATCH (n:Item) WHERE n.id IN $ids
WITH n.id AS key, n {.*, embedding: null} AS node
RETURN collect({key: key, node: node}) AS rows
