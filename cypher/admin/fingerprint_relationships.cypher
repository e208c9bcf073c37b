// Every relationship between projected nodes: none touching the log or Graphiti's SDK store (its Entity,
// Episodic, Community and Saga nodes link only among themselves).
MATCH (a)-[r]->(b)
WHERE NOT a:Event AND NOT b:Event
  AND NOT (a:Entity OR a:Episodic OR a:Community OR a:Saga)
  AND NOT (b:Entity OR b:Episodic OR b:Community OR b:Saga)
RETURN type(r) AS type, labels(a) AS a_labels, a.id AS a_id, labels(b) AS b_labels, b.id AS b_id,
       properties(r) AS props
