// $rows: {seq, run_id, counts_json, usage_json}
// A pass over a run's items that left attempts or judgments missing (a rerun continues it).
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
SET r.status = 'incomplete', r.finished_seq = row.seq, r.counts = row.counts_json, r.usage = row.usage_json
RETURN collect(row.run_id) AS applied
