// $rows: {seq, attempt_id, status, rounds, turns, tokens_in, tokens_out, seconds, error, usage_json}
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})
SET a.status = row.status, a.rounds = row.rounds, a.turns = row.turns, a.tokens_in = row.tokens_in,
    a.tokens_out = row.tokens_out, a.seconds = row.seconds, a.error = row.error, a.usage = row.usage_json,
    a.finished_seq = row.seq
RETURN collect(row.attempt_id) AS applied
