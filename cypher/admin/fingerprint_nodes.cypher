// Every projected node. Not the log (Event, LogHead, ProjectionMeta) and not Graphiti's SDK store (Entity,
// Episodic, Community, Saga), which graphiti-core writes itself and `graph rebuild` keeps.
MATCH (n)
WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta
  AND NOT n:Entity AND NOT n:Episodic AND NOT n:Community AND NOT n:Saga
RETURN labels(n) AS labels, properties(n) AS props
