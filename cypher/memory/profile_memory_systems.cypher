// The memory systems that hold live cards for the profile (each gets its document links kept honest on growth).
MATCH (:Profile {id: $profile_id})-[:HAS_MEMORY]->(m:Memory)
WHERE NOT coalesce(m.deleted, false)
RETURN DISTINCT m.system AS system
ORDER BY system
