// $rows: {seq, attempt_id, run_id, item_id}; the item must be one the run planned.
UNWIND $rows AS row
MATCH (r:Run {id: row.run_id})
MATCH (i:Item {id: row.item_id})
WHERE row.item_id IN r.item_ids
CREATE (a:Attempt {id: row.attempt_id, seq: row.seq, run_id: row.run_id, item_id: row.item_id,
                   profile_id: i.profile_id, method: r.method, status: 'running', rounds: 0, turns: 0,
                   tokens_in: 0, tokens_out: 0})
CREATE (a)-[:IN_RUN {seq: row.seq}]->(r)
CREATE (a)-[:OF_ITEM {seq: row.seq}]->(i)
RETURN collect(row.attempt_id) AS applied
