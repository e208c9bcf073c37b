// The memory-systems QA runs (newest first) with their configuration, for the side-by-side report.
MATCH (r:QaRun)
WHERE r.config CONTAINS '"line":"memory_systems"'
RETURN r.id AS qa_run_id, r.dataset AS dataset, r.source AS source, r.config AS config, r.models AS models,
       r.prompt_hashes AS prompt_hashes, r.item_ids AS item_ids
ORDER BY r.updated_seq DESC
