// Evaluation gold of items, read by the evaluator only (never by a method): support documents, the turns
// (with their sessions) of every requirement, and the item fields that decide how it is scored.
UNWIND $item_ids AS iid
MATCH (i:Item {id: iid})
CALL (i) {
  OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(d:Document)
  RETURN collect(DISTINCT d.id) AS support_doc_ids
}
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(:Requirement)-[:STATED_IN]->(t:Turn)
  WITH DISTINCT t WHERE t IS NOT NULL
  RETURN collect({turn_id: t.id, role: t.role, session_id: t.session_id}) AS turns
}
RETURN i.id AS item_id, i.profile_id AS profile_id, i.dataset AS dataset, i.question AS question,
       i.question_type AS question_type, coalesce(i.labels, []) AS labels, i.metadata AS metadata,
       support_doc_ids, turns
