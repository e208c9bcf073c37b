// The event log after $after, oldest first, optionally one $type; $limit rows (callers ask one more than they
// show, to know whether another page exists). Payloads are fetched separately, only when asked for.
MATCH (e:Event)
WHERE e.seq > $after AND ($type IS NULL OR e.type = $type)
WITH e.event_id AS event_id, e.seq AS seq, e.type AS type, e.occurred_at AS occurred_at,
       e.recorded_at AS recorded_at, e.actor AS actor, e.prev_hash AS prev_hash,
       e.hash AS hash
ORDER BY e.seq
LIMIT $limit
RETURN collect({
  event_id: event_id, seq: seq, type: type, occurred_at: occurred_at, recorded_at: recorded_at, actor: actor, prev_hash: prev_hash, hash: hash
}) AS rows
