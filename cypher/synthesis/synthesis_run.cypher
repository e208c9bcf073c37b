// The recorded settings of a synthesis, if it was started before.
MATCH (s:SynthesisRun {id: $synthesis_id})
RETURN s.config AS config, s.seed AS seed, s.dataset AS dataset
