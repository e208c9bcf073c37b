// $rows: {seq, topic_id, profile_id, title, intent, fact_ids}
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CREATE (t:Topic {id: row.topic_id, seq: row.seq, profile_id: row.profile_id, title: row.title, intent: row.intent})
CREATE (p)-[:HAS_TOPIC {seq: row.seq}]->(t)
WITH t, row
CALL (t, row) {
  UNWIND row.fact_ids AS fid
  MATCH (f:Fact {id: fid, profile_id: row.profile_id})
  CREATE (t)-[:CONCERNS {seq: row.seq}]->(f)
  RETURN count(*) AS n_facts
}
WITH row, n_facts WHERE n_facts = size(row.fact_ids)
RETURN collect(row.topic_id) AS applied
