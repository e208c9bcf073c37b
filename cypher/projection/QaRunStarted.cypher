// $rows: {seq, qa_run_id, dataset, source, item_ids, config_json, models_json, prompt_hashes_json}
// One QaRun per `eval qa` configuration; a resumed run re-states the same configuration (MERGE keeps one node).
UNWIND $rows AS row
MERGE (r:QaRun {id: row.qa_run_id})
ON CREATE SET r.seq = row.seq
SET r.dataset = row.dataset, r.source = row.source, r.item_ids = row.item_ids, r.config = row.config_json,
    r.models = row.models_json, r.prompt_hashes = row.prompt_hashes_json, r.updated_seq = row.seq
RETURN collect(row.qa_run_id) AS applied
