// Does the profile exist, how many live cards of $system it has, and where the history cut-off turn lies.
OPTIONAL MATCH (p:Profile {id: $profile_id})
OPTIONAL MATCH (s:Session)-[:HAS_TURN]->(t:Turn {id: $turn_id})
RETURN p IS NOT NULL AS profile_exists,
       COUNT { (p)-[:HAS_MEMORY]->(m:Memory {system: $system}) WHERE NOT coalesce(m.deleted, false) } AS n_cards,
       t IS NOT NULL AS turn_exists, t.profile_id AS turn_profile_id,
       s.ordinal AS cut_session, t.ordinal AS cut_turn
