// Ids of the memory cards (live or deleted) of system $system among the listed profiles.
MATCH (m:Memory {system: $system})
WHERE m.profile_id IN $profile_ids
RETURN m.id AS memory_id
