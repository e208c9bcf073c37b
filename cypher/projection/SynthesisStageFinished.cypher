// $rows: {seq, stage_run_id, synthesis_id, stage, counts_json, usage_json}
UNWIND $rows AS row
MATCH (s:SynthesisRun {id: row.synthesis_id})
CREATE (st:SynthesisStage {id: row.stage_run_id, seq: row.seq, stage: row.stage, counts: row.counts_json,
        usage: row.usage_json})
CREATE (st)-[:IN_SYNTHESIS]->(s)
RETURN collect(row.stage_run_id) AS applied
