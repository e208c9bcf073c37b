// $ids: document ids -> related documents in either direction, with the link's description and weight.
MATCH (d:Document)-[r:RELATED]-(n:Document) WHERE d.id IN $ids
WITH d.id AS key, n {.*, text: null} AS node,
       {description: r.description, weight: r.weight, outgoing: startNode(r) = d, seq: r.seq} AS rel
ORDER BY r.weight DESC, n.id
RETURN collect({key: key, node: node, rel: rel}) AS rows
