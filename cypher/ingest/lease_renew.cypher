// The running ingest's heartbeat: renew its lease (only while this process still holds it).
MATCH (l:IngestLease {ingest_id: $ingest_id, holder: $holder})
SET l.renewed_at = timestamp()
