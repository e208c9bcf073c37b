// $rows: {seq, fact_id, turn_id}; a fact can only be disclosed in a turn of its own profile.
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id})
MATCH (f:Fact {id: row.fact_id, profile_id: t.profile_id})
CREATE (t)-[:DISCLOSES {seq: row.seq}]->(f)
RETURN collect(row.fact_id + '@' + row.turn_id) AS applied
