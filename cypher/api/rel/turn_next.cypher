// $ids: turn ids -> the following turn of the same session.
MATCH (t:Turn)-[:NEXT]->(n:Turn) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
RETURN collect({key: key, node: node}) AS rows
