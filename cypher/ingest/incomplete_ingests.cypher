// Ingests whose IngestCompleted is not in the log yet, with how far they got and whether one is running: a lease
// (graph/ingest_lease.py) renewed within its expiry means "in progress", none or an expired one "interrupted"
// (a crash or kill mid-way). $now_ms: the database's clock unless given (a test looks past the expiry).
MATCH (i:Ingest {status: 'incomplete'})
OPTIONAL MATCH (l:IngestLease {ingest_id: i.id})
WITH i, l, coalesce($now_ms, timestamp()) AS now
RETURN i.id AS ingest_id, i.dataset AS dataset, i.n_events AS n_events, i.seq AS started_seq,
       CASE WHEN l IS NOT NULL AND now - l.renewed_at <= l.expires_after_s * 1000 THEN 'in progress'
            ELSE 'interrupted' END AS state,
       l.pid AS lease_pid, l.host AS lease_host, l.renewed_at AS lease_renewed_at,
       l.expires_after_s AS lease_expires_after_s,
       CASE WHEN l IS NULL THEN null ELSE (now - l.renewed_at) / 1000.0 END AS lease_age_s
ORDER BY i.seq
