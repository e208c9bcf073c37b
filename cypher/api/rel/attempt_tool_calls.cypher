// $ids: attempt ids -> their tool calls in round and call order.
MATCH (a:Attempt)-[:CALLED]->(n:ToolCall) WHERE a.id IN $ids
WITH a.id AS key, n {.*} AS node
ORDER BY n.round, n.ordinal
RETURN collect({key: key, node: node}) AS rows
