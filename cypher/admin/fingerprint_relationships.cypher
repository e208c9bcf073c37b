MATCH (a)-[r]->(b)
WHERE NOT a:Event AND NOT b:Event
RETURN type(r) AS type, labels(a) AS a_labels, a.id AS a_id, labels(b) AS b_labels, b.id AS b_id,
       properties(r) AS props
