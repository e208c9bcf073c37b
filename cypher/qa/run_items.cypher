// The question ids of one QA run (reports summarise a run over its own questions).
MATCH (r:QaRun {id: $qa_run_id})
RETURN r.item_ids AS ids
