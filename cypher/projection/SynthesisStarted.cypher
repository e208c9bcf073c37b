// $rows: {seq, synthesis_id, dataset, seed, config_json, models_json, prompt_hashes_json}
// One SynthesisRun per dataset synthesis; resuming with the same settings appends nothing new.
UNWIND $rows AS row
MERGE (s:SynthesisRun {id: row.synthesis_id})
ON CREATE SET s.seq = row.seq
SET s.dataset = row.dataset, s.seed = row.seed, s.config = row.config_json, s.models = row.models_json,
    s.prompt_hashes = row.prompt_hashes_json
RETURN collect(row.synthesis_id) AS applied
