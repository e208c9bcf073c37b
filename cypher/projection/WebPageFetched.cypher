// $rows: {seq, fetch_id, synthesis_id, seed_doc_id, query, rank, url, final_url, fetched_at, outcome, status,
//         content_type, n_bytes, doc_id, reason}
UNWIND $rows AS row
MATCH (s:SynthesisRun {id: row.synthesis_id})
CREATE (f:WebFetch {id: row.fetch_id, seq: row.seq, seed_doc_id: row.seed_doc_id, query: row.query, rank: row.rank,
        url: row.url, final_url: row.final_url, fetched_at: row.fetched_at, outcome: row.outcome,
        status: row.status, content_type: row.content_type, n_bytes: row.n_bytes, reason: row.reason})
CREATE (f)-[:IN_SYNTHESIS]->(s)
WITH f, row
OPTIONAL MATCH (d:Document {id: row.doc_id})
FOREACH (_ IN CASE WHEN d IS NULL THEN [] ELSE [1] END | CREATE (f)-[:FETCHED_AS]->(d))
RETURN collect(row.fetch_id) AS applied
