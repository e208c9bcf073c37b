// Ingests whose IngestCompleted is not in the log yet (a crash or kill mid-way), with how far they got.
MATCH (i:Ingest {status: 'incomplete'})
RETURN i.id AS ingest_id, i.dataset AS dataset, i.n_events AS n_events, i.seq AS started_seq
ORDER BY i.seq
