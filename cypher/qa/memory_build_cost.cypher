// What building a system's memory of these profiles cost, over every build pass (the MemoryBuildStep of each
// pair taken in), and the memories it holds now.
UNWIND $profile_ids AS pid
MATCH (p:Profile {id: pid})
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_BUILD_STEP]->(s:MemoryBuildStep {system: $system})
  RETURN count(s) AS steps, sum(coalesce(s.llm_calls, 0)) AS llm_calls, sum(coalesce(s.tokens_in, 0)) AS tokens_in,
         sum(coalesce(s.tokens_out, 0)) AS tokens_out, sum(coalesce(s.seconds, 0.0)) AS seconds
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_MEMORY]->(m:Memory {system: $system})
  RETURN count(m) AS memories, sum(CASE WHEN m.deleted THEN 0 ELSE 1 END) AS live
}
RETURN sum(steps) AS build_steps, sum(llm_calls) AS llm_calls, sum(tokens_in) AS tokens_in,
       sum(tokens_out) AS tokens_out, sum(seconds) AS seconds, sum(memories) AS memories, sum(live) AS live_memories
