// Memory-evidence turns (in history order) that have no card of memory system $system yet: user turns, and
// every turn of a profile whose dataset is in $people_datasets (both speakers are people, e.g. LoCoMo);
// $profile_id / $profile_ids null = all profiles.
MATCH (p:Profile)-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
WHERE ($profile_id IS NULL OR p.id = $profile_id)
  AND ($profile_ids IS NULL OR p.id IN $profile_ids)
  AND (t.role = 'user' OR p.dataset IN $people_datasets)
  AND NOT EXISTS { MATCH (:Memory {system: $system})-[:DERIVED_FROM]->(t) }
RETURN p.id AS profile_id, s.id AS session_id, t.id AS turn_id, t.text AS text, t.at AS at,
       t.speaker AS speaker, t.role AS role
ORDER BY p.id, s.ordinal, t.ordinal
