// Every attempt of run $run_id with an accuracy judgment ($attempt_ids: only these, or null for all), with what
// a person needs to rule on it: the item (question, reference answer, requirements with their user statements
// and spans), the answer, every accuracy judgment (the caller picks the one that counts), the latest
// adjudication and the tool calls in order. One query per run (no query per attempt).
MATCH (r:Run {id: $run_id})<-[:IN_RUN]-(a:Attempt)
WHERE $attempt_ids IS NULL OR a.id IN $attempt_ids
CALL (a) {
  MATCH (a)-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'})
  WITH j ORDER BY j.seq
  RETURN collect(j {.id, .verdict, .rationale, .judge_model, .prompt_sha256, .seq, .valid, .details}) AS judgments
}
WITH r, a, judgments WHERE size(judgments) > 0
MATCH (a)-[:OF_ITEM]->(i:Item)
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(q:Requirement)
  WITH q ORDER BY q.ordinal
  CALL (q) {
    OPTIONAL MATCH (q)-[:STATED_IN]->(t:Turn)
    WITH t ORDER BY t.session_id, t.ordinal
    RETURN [x IN collect({turn_id: t.id, text: t.text}) WHERE x.turn_id IS NOT NULL] AS statements
  }
  CALL (q) {
    OPTIONAL MATCH (q)-[g:GROUNDED_IN]->(d:Document)
    WITH d, g ORDER BY d.id, g.start_line
    RETURN [x IN collect(d.id + ' lines ' + toString(g.start_line) + '-' + toString(g.end_line)) WHERE x IS NOT NULL]
           AS spans
  }
  RETURN [x IN collect({requirement_id: q.id, text: q.text, action: q.action, statements: statements,
                        spans: spans}) WHERE x.requirement_id IS NOT NULL] AS requirements
}
CALL (a) {
  OPTIONAL MATCH (a)-[:ADJUDICATED_BY]->(d:Adjudication)
  WITH d ORDER BY d.seq DESC
  RETURN head(collect(d {.*})) AS adjudication
}
CALL (a) {
  OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall)
  WITH c ORDER BY c.round, c.ordinal
  CALL (c) {
    OPTIONAL MATCH (c)-[x:RETURNED]->(n)
    WITH x, n ORDER BY x.rank
    RETURN [v IN collect(x.kind + ':' + n.id + CASE WHEN x.start_line IS NULL THEN ''
                         ELSE ' lines ' + toString(x.start_line) + '-' + toString(x.end_line) END)
            WHERE v IS NOT NULL] AS returned
  }
  RETURN [v IN collect(c {.round, .ordinal, .tool, .arguments, .ok, .error, .response, returned: returned})
          WHERE v.tool IS NOT NULL] AS calls
}
RETURN a.id AS attempt_id, r.id AS run_id, r.method AS method, i.id AS item_id, i.question AS question,
       i.reference_answer AS reference_answer, requirements, a.answer AS answer, judgments, adjudication, calls
ORDER BY attempt_id
