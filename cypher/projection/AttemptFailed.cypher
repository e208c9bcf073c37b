// $rows: {seq, attempt_id, seconds, error, usage_json}
// A failed try of an attempt (retried on resume; an AttemptFinished later says it was answered).
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})
SET a.status = 'error', a.seconds = row.seconds, a.error = row.error, a.usage = row.usage_json,
    a.finished_seq = row.seq
RETURN collect(row.attempt_id) AS applied
