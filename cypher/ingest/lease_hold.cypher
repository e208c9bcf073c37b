// Take (or take over) the lease of a running ingest (graph/ingest_lease.py): who holds it and when it was last
// renewed, by the database's clock, so the reader compares with the same clock. Not an event: the lease is the
// state of a process, not of the graph (the fingerprint and rebuild leave :IngestLease out).
MERGE (l:IngestLease {ingest_id: $ingest_id})
SET l.dataset = $dataset, l.holder = $holder, l.pid = $pid, l.host = $host,
    l.expires_after_s = $expires_after_s, l.taken_at = timestamp(), l.renewed_at = timestamp()
