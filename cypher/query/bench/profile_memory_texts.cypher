// Benchmark: the texts of a profile's memory cards.
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory) RETURN m.text AS text
