// $ids: topic ids -> the facts they concern.
MATCH (t:Topic)-[:CONCERNS]->(n:Fact) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
