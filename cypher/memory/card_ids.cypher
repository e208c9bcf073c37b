// Ids of the memory cards (live or deleted, flagged) of system $system among the listed profiles.
MATCH (m:Memory {system: $system})
WHERE m.profile_id IN $profile_ids
RETURN m.id AS memory_id, m.profile_id AS profile_id, coalesce(m.deleted, false) AS deleted
