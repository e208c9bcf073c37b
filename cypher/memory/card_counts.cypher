// Live memory cards per system among the given profiles (which systems a recipe can read).
MATCH (m:Memory)
WHERE m.profile_id IN $profile_ids AND NOT coalesce(m.deleted, false)
RETURN m.system AS system, count(m) AS n
