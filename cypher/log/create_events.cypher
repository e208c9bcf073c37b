// Create the new :Event nodes and move the log head to the last of them ($seq, $hash), in one statement.
UNWIND $rows AS row
CREATE (:Event {event_id: row.event_id, seq: row.seq, type: row.type, occurred_at: row.occurred_at,
                recorded_at: row.recorded_at, actor: row.actor, payload: row.payload,
                prev_hash: row.prev_hash, hash: row.hash, schema_version: row.schema_version})
WITH count(*) AS created
MATCH (h:LogHead {id: 'head'})
SET h.seq = $seq, h.hash = $hash
