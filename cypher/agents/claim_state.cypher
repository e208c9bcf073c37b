// The latest claim on each attempt of $attempt_ids (those without one are absent) and the attempt's status.
UNWIND $attempt_ids AS attempt_id
OPTIONAL MATCH (c:AttemptClaim {id: attempt_id})
OPTIONAL MATCH (a:Attempt {id: attempt_id})
WITH attempt_id, c, a
WHERE c IS NOT NULL OR a IS NOT NULL
RETURN attempt_id, c.worker AS worker, c.state AS state, c.expires_at AS expires_at, a.status AS status
