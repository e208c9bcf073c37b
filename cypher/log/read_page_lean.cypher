// Replay reads only what projections need: seq, type and payload, in seq order.
MATCH (e:Event)
WHERE e.seq > $after AND e.seq <= $until
RETURN e.seq AS seq, e.type AS type, e.payload AS payload, coalesce(e.schema_version, 1) AS schema_version
ORDER BY e.seq
LIMIT $limit
