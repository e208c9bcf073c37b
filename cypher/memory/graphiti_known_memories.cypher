// Which of the memory ids $ids a profile already has in system $system (projected Memory nodes).
MATCH (m:Memory {system: $system, profile_id: $profile_id})
WHERE m.id IN $ids
RETURN collect(m.id) AS ids
