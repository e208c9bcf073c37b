// The profile $profile_id and how many sessions it has (the next session's ordinal).
MATCH (p:Profile {id: $profile_id})
OPTIONAL MATCH (p)-[:HAS_SESSION]->(s:Session)
RETURN p.id AS profile_id, count(s) AS n_sessions
