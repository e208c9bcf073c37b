// $ids: ids of :Document nodes; one row per node found. The text is left out (lines are read by range).
MATCH (n:Document) WHERE n.id IN $ids
WITH n.id AS key, n {.*, text: null} AS node
RETURN collect({key: key, node: node}) AS rows
