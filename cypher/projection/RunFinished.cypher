// $rows: {seq, run_id, status, counts_json, usage_json}
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
SET r.status = row.status, r.finished_seq = row.seq, r.counts = row.counts_json, r.usage = row.usage_json
RETURN collect(row.run_id) AS applied
