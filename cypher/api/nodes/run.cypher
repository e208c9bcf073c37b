// $ids: ids of :Run nodes; one row per node found (embeddings left out).
MATCH (n:Run) WHERE n.id IN $ids
WITH n.id AS key, n {.*, embedding: null} AS node
RETURN collect({key: key, node: node}) AS rows
