// Units of one stage of a synthesis that a final draft outcome closed (a rerun skips them).
MATCH (d:SynthesisDraft {synthesis_id: $synthesis_id, stage: $stage})
WHERE d.final
RETURN d.subject AS subject, d.outcome AS outcome
