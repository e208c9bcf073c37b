// $rows: {seq, ingest_id, dataset, n_events}
// An ingest in progress; IngestCompleted marks it complete.
UNWIND $rows AS row
MERGE (i:Ingest {id: row.ingest_id})
  ON CREATE SET i.seq = row.seq, i.dataset = row.dataset, i.n_events = row.n_events,
                i.status = 'incomplete'
RETURN collect(row.ingest_id) AS applied
