// $ids: turn ids -> the preceding turn of the same session.
MATCH (n:Turn)-[:NEXT]->(t:Turn) WHERE t.id IN $ids
WITH t.id AS key, n {.*} AS node
RETURN collect({key: key, node: node}) AS rows
