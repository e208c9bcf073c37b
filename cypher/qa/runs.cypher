// Every QA run (newest first) with its configuration, for reports.
MATCH (r:QaRun)
RETURN r.id AS qa_run_id, r.dataset AS dataset, r.source AS source, r.config AS config, r.models AS models,
       r.prompt_hashes AS prompt_hashes, size(r.item_ids) AS n_items
ORDER BY r.updated_seq DESC
