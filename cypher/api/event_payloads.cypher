// $seqs: event seq numbers -> their payloads (JSON text), for the events whose payload was asked for.
MATCH (e:Event) WHERE e.seq IN $seqs
WITH e.seq AS seq, e.payload AS payload
RETURN collect({seq: seq, payload: payload}) AS rows
