// Every projected node. Not the log (Event, LogHead, ProjectionMeta), not a running ingest's IngestLease, and
// not Graphiti's SDK store (Entity, Episodic, Community, Saga), which graphiti-core writes itself and `graph
// rebuild` keeps, nor the adapter's undo records of that store (GraphitiUndo).
MATCH (n)
WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta AND NOT n:IngestLease
  AND NOT n:Entity AND NOT n:Episodic AND NOT n:Community AND NOT n:Saga AND NOT n:GraphitiUndo
RETURN labels(n) AS labels, properties(n) AS props
