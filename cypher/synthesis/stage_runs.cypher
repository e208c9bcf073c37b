// Every recorded stage invocation of a synthesis with its counts and usage.
MATCH (st:SynthesisStage)-[:IN_SYNTHESIS]->(:SynthesisRun {id: $synthesis_id})
RETURN st.stage AS stage, st.counts AS counts, st.usage AS usage
ORDER BY st.seq
