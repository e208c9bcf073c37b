// Replay reads only what projections need: seq, type, payload and schema version of the events with seq in
// (after, until], in seq order, as four parallel lists of up to $chunk events per record (a record per event
// cost the client more than decoding the payloads).
MATCH (e:Event)
WHERE e.seq > $after AND e.seq <= $until
WITH e ORDER BY e.seq LIMIT $limit
WITH collect(e) AS events
UNWIND range(0, size(events) - 1, $chunk) AS start
WITH events[start..start + $chunk] AS part
RETURN [e IN part | e.seq] AS seqs, [e IN part | e.type] AS types, [e IN part | e.payload] AS payloads,
       [e IN part | coalesce(e.schema_version, 1)] AS versions
