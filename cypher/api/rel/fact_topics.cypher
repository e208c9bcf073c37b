// $ids: fact ids -> the topics that concern them.
MATCH (n:Topic)-[:CONCERNS]->(f:Fact) WHERE f.id IN $ids
WITH f.id AS key, n {.*} AS node
ORDER BY n.seq, n.id
RETURN collect({key: key, node: node}) AS rows
