// Which summary of a profile is active for a state system, and the summary ids starting with $prefix.
OPTIONAL MATCH (:Profile {id: $profile_id})-[:HAS_STATE]->(st:State {system: $system})
WITH collect(st) AS states
RETURN [s IN states WHERE s.active | s.summary_id][0] AS active_summary_id,
       [s IN states WHERE s.summary_id STARTS WITH $prefix | s.summary_id] AS existing
