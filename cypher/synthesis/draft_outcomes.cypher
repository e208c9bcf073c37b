// Outcomes of every draft of a synthesis: stage, role, outcome, final flag, gate label (if any) and reasons.
MATCH (d:SynthesisDraft {synthesis_id: $synthesis_id})
RETURN d.stage AS stage, d.role AS role, d.subject AS subject, d.revision AS revision, d.outcome AS outcome,
       d.final AS final, d.reasons AS reasons, d.details AS details
ORDER BY d.seq
