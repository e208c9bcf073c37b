// Remove every projected node (the log, its head, the meta node and a running ingest's lease stay), in bounded transactions.
// Graphiti's own nodes (Entity, Episodic, Community, Saga: the `graphiti` memory system's SDK store, written by
// graphiti-core, not projected from events) stay too, so Graphiti's search still answers after a rebuild, and so
// do the adapter's undo records of it (GraphitiUndo), so a pair stopped mid-write is still undone exactly.
MATCH (n)
WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta AND NOT n:IngestLease
  AND NOT n:Entity AND NOT n:Episodic AND NOT n:Community AND NOT n:Saga AND NOT n:GraphitiUndo
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
