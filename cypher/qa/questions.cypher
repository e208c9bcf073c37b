// The questions of `eval qa` with what the reader may see (question, date) and what only the judge and the
// retrieval figures may use (reference answer, evidence sessions and turns).
UNWIND $item_ids AS iid
MATCH (i:Item {id: iid})
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(:Requirement)-[:EVIDENCED_IN]->(s:Session)
  RETURN collect(DISTINCT s.id) AS evidence_session_ids
}
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(:Requirement)-[:STATED_IN]->(t:Turn)
  RETURN collect(DISTINCT t.id) AS evidence_turn_ids
}
RETURN i.id AS item_id, i.profile_id AS profile_id, i.dataset AS dataset, i.question AS question,
       i.reference_answer AS reference_answer, i.question_type AS question_type, i.asked_at AS asked_at,
       coalesce(i.labels, []) AS labels, i.metadata AS metadata, evidence_session_ids, evidence_turn_ids
