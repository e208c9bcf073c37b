// Take the log's write lock for this transaction and read the chain head.
MERGE (h:LogHead {id: 'head'})
ON CREATE SET h.seq = 0, h.hash = $genesis
SET h.locked_at = timestamp()
RETURN h.seq AS seq, h.hash AS hash
