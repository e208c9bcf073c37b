// $rows: {seq, session_id, profile_id, ordinal, topic_id, started_at, source_id, metadata_json}
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CREATE (s:Session {id: row.session_id, seq: row.seq, profile_id: row.profile_id, ordinal: row.ordinal,
                   topic_id: row.topic_id, started_at: row.started_at, source_id: row.source_id,
                   metadata: row.metadata_json})
CREATE (p)-[:HAS_SESSION {seq: row.seq}]->(s)
WITH s, row
OPTIONAL MATCH (t:Topic {id: row.topic_id, profile_id: row.profile_id})
WITH s, row, t WHERE row.topic_id IS NULL OR t IS NOT NULL
CALL (s, t, row) {
  WITH * WHERE t IS NOT NULL
  CREATE (s)-[:ABOUT {seq: row.seq}]->(t)
}
RETURN collect(row.session_id) AS applied
