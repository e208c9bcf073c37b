MATCH (h:LogHead {id: 'head'})
SET h.seq = $seq, h.hash = $hash
