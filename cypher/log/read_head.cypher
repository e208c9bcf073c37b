OPTIONAL MATCH (h:LogHead {id: 'head'})
RETURN coalesce(h.seq, 0) AS seq, coalesce(h.hash, $genesis) AS hash
