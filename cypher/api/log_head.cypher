// The log head (seq 0 before the first event).
OPTIONAL MATCH (h:LogHead {id: 'head'})
WITH coalesce(h.seq, 0) AS seq, h.hash AS hash
RETURN collect({seq: seq, hash: hash}) AS rows
