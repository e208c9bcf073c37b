// $ids: item ids -> the items they were augmented from, with the direction of the change.
MATCH (i:Item)-[a:AUGMENTED_FROM]->(n:Item) WHERE i.id IN $ids
WITH i.id AS key, n {.*} AS node, {direction: a.direction, details: a.details} AS rel
RETURN collect({key: key, node: node, rel: rel}) AS rows
