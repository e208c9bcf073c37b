// The ingest stopped (completed, failed or interrupted in this process): its lease goes.
MATCH (l:IngestLease {ingest_id: $ingest_id, holder: $holder})
DELETE l
