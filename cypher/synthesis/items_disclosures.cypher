// The facts a profile's user turns disclosed: fact, disclosing turn (its verbatim text) and session, in order.
MATCH (p:Profile {id: $profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn {role: 'user'})
      -[:DISCLOSES]->(f:Fact)
RETURN f.id AS fact_id, f.text AS fact_text, t.id AS turn_id, t.text AS turn_text, s.id AS session_id
ORDER BY s.ordinal, t.ordinal, f.id
