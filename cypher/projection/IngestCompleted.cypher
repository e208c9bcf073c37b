// $rows: {seq, ingest_id}
UNWIND $rows AS row
MATCH (i:Ingest {id: row.ingest_id})
SET i.status = 'complete', i.completed_seq = row.seq
RETURN collect(row.ingest_id) AS applied
