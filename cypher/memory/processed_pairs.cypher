// The pairs of a profile that a memory system has already taken in (MemoryPairProcessed), for resume.
MATCH (:Profile {id: $profile_id})-[:HAS_BUILD_STEP]->(s:MemoryBuildStep {system: $system})
RETURN collect(s.pair_id) AS pair_ids
