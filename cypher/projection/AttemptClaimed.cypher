// $rows: {seq, attempt_id, run_id, item_id, worker, state, claimed_at, expires_at, ttl_s}
// Each attempt's latest claim (one :AttemptClaim node per attempt, updated in seq order); `takeovers` counts the
// claims taken from another worker whose claim had expired without being released.
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
WHERE row.item_id IN r.item_ids
MERGE (c:AttemptClaim {id: row.attempt_id})
ON CREATE SET c.seq = row.seq, c.run_id = row.run_id, c.item_id = row.item_id, c.claims = 0, c.takeovers = 0
SET c.takeovers = c.takeovers + CASE
      WHEN row.state = 'claimed' AND c.worker IS NOT NULL AND c.worker <> row.worker AND c.state <> 'released'
      THEN 1 ELSE 0 END,
    c.claims = c.claims + CASE WHEN row.state = 'claimed' THEN 1 ELSE 0 END,
    c.worker = row.worker, c.state = row.state, c.claimed_at = row.claimed_at, c.expires_at = row.expires_at,
    c.ttl_s = row.ttl_s, c.last_seq = row.seq
MERGE (c)-[:CLAIMS_IN]->(r)
RETURN collect(row.attempt_id) AS applied
