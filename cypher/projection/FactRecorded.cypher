// $rows: {seq, fact_id, profile_id, text, private, category, metadata_json}
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CREATE (f:Fact {id: row.fact_id, seq: row.seq, profile_id: row.profile_id, text: row.text,
                private: row.private, category: row.category, metadata: row.metadata_json})
CREATE (p)-[:HAS_FACT {seq: row.seq}]->(f)
RETURN collect(row.fact_id) AS applied
