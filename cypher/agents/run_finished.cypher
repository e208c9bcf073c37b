// Whether the run already has its RunFinished (status `finished`).
OPTIONAL MATCH (r:Run {id: $run_id})
RETURN coalesce(r.status = 'finished', false) AS finished, r IS NOT NULL AS exists
