// The grading reference of an item (judges only; never shown to a method): question, reference answer,
// requirements with their user statements, facts and document spans, and the support and history documents.
MATCH (i:Item {id: $item_id})
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(r:Requirement)
  WITH r ORDER BY r.ordinal
  CALL (r) {
    OPTIONAL MATCH (r)-[:STATED_IN]->(t:Turn)
    WITH t ORDER BY t.id
    RETURN [x IN collect({id: t.id, role: t.role, text: t.text, at: t.at}) WHERE x.id IS NOT NULL] AS statements
  }
  CALL (r) {
    OPTIONAL MATCH (r)-[:USES_FACT]->(f:Fact)
    WITH f ORDER BY f.id
    RETURN [x IN collect({id: f.id, text: f.text}) WHERE x.id IS NOT NULL] AS facts
  }
  CALL (r) {
    OPTIONAL MATCH (r)-[g:GROUNDED_IN]->(d:Document)
    WITH d, g ORDER BY d.id, g.start_line
    RETURN [x IN collect({doc_id: d.id, start_line: g.start_line, end_line: g.end_line}) WHERE x.doc_id IS NOT NULL]
           AS spans
  }
  RETURN [x IN collect({id: r.id, text: r.text, action: r.action, statements: statements, facts: facts,
                        spans: spans}) WHERE x.id IS NOT NULL] AS requirements
}
CALL (i) {
  OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(d:Document)
  WITH d ORDER BY d.id
  RETURN [x IN collect({doc_id: d.id, title: d.title, text: d.text}) WHERE x.doc_id IS NOT NULL] AS support
}
CALL (i) {
  OPTIONAL MATCH (i)-[:USES_HISTORY_DOC]->(d:Document)
  WITH d ORDER BY d.id
  RETURN [x IN collect({doc_id: d.id, title: d.title, text: d.text}) WHERE x.doc_id IS NOT NULL] AS history_docs
}
RETURN i.id AS item_id, i.profile_id AS profile_id, i.question AS question, i.asked_at AS asked_at,
       i.reference_answer AS reference_answer, requirements, support, history_docs,
       i.question_type AS question_type, i.labels AS labels, i.metadata AS item_metadata
