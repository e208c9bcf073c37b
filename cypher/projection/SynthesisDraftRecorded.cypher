// $rows: {seq, draft_id, synthesis_id, stage, role, subject, revision, outcome, final, reasons, details_json}
UNWIND $rows AS row
MATCH (s:SynthesisRun {id: row.synthesis_id})
CREATE (d:SynthesisDraft {id: row.draft_id, seq: row.seq, synthesis_id: row.synthesis_id, stage: row.stage,
        role: row.role, subject: row.subject, revision: row.revision, outcome: row.outcome, final: row.final,
        reasons: row.reasons, details: row.details_json})
CREATE (d)-[:IN_SYNTHESIS]->(s)
RETURN collect(row.draft_id) AS applied
