// Take the log's write lock for this transaction, read the chain head and which of $ids are logged already
// (one round trip for what an append reads before it writes).
MERGE (h:LogHead {id: 'head'})
ON CREATE SET h.seq = 0, h.hash = $genesis
SET h.locked_at = timestamp()
WITH h
OPTIONAL MATCH (e:Event) WHERE e.event_id IN $ids
RETURN h.seq AS seq, h.hash AS hash, collect(e.event_id) AS existing
