// $ids: attempt ids -> the judgments of each attempt (accuracy, quality dimensions, error analysis).
MATCH (a:Attempt)-[:JUDGED_BY]->(n:Judgment) WHERE a.id IN $ids
WITH a.id AS key, n {.*} AS node
ORDER BY n.kind, n.seq
RETURN collect({key: key, node: node}) AS rows
