// Build cost of a memory system per profile: pairs taken in, LLM calls, tokens and seconds.
MATCH (p:Profile)-[:HAS_BUILD_STEP]->(s:MemoryBuildStep {system: $system})
WHERE $profile_ids IS NULL OR p.id IN $profile_ids
RETURN p.id AS profile_id, count(s) AS pairs, sum(s.llm_calls) AS llm_calls, sum(s.tokens_in) AS tokens_in,
       sum(s.tokens_out) AS tokens_out, sum(s.seconds) AS seconds
ORDER BY profile_id
