// $rows: {seq, fact_id, profile_id, text, private, category, metadata_json}
// $profiles: [{profile_id, members}] (graph/projection.py): each profile is sought once, not once per row.
UNWIND $profiles AS profile
MATCH (p:Profile {id: profile.profile_id})
CALL (p, profile) {
  UNWIND profile.members AS i
  WITH p, $rows[i] AS row
  CREATE (f:Fact {id: row.fact_id, seq: row.seq, profile_id: row.profile_id, text: row.text,
                  private: row.private, category: row.category, metadata: row.metadata_json})
  CREATE (p)-[:HAS_FACT {seq: row.seq}]->(f)
  RETURN collect(row.fact_id) AS ids
}
UNWIND ids AS id
RETURN collect(id) AS applied
