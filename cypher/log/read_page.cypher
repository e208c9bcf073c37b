// Events with seq in (after, until], in order.
MATCH (e:Event)
WHERE e.seq > $after AND e.seq <= $until
RETURN e.event_id AS event_id, e.seq AS seq, e.type AS type, e.occurred_at AS occurred_at,
       e.recorded_at AS recorded_at, e.actor AS actor, e.payload AS payload,
       e.prev_hash AS prev_hash, e.hash AS hash, coalesce(e.schema_version, 1) AS schema_version
ORDER BY e.seq
LIMIT $limit
