// Every answer requirement of a run's items: its facts with the turns that disclosed them, its user
// statements, its knowledge spans (with the text of those lines), and the attempt's answer.
MATCH (r:Run {id: $run_id})
UNWIND r.item_ids AS iid
MATCH (i:Item {id: iid})-[:HAS_REQUIREMENT]->(req:Requirement)
OPTIONAL MATCH (a:Attempt {id: $run_id + ':' + iid})
CALL (req) {
  OPTIONAL MATCH (req)-[:USES_FACT]->(f:Fact)
  WITH f ORDER BY f.id
  RETURN [x IN collect({fact_id: f.id, turns: [(t:Turn)-[:DISCLOSES]->(f) | t.id]}) WHERE x.fact_id IS NOT NULL]
         AS facts
}
CALL (req) {
  OPTIONAL MATCH (req)-[g:GROUNDED_IN]->(d:Document)
  WITH d, g ORDER BY d.id, g.start_line
  RETURN [x IN collect({doc_id: d.id, title: d.title, start_line: g.start_line, end_line: g.end_line,
                        text: reduce(s = '', l IN split(d.text, '\n')[g.start_line - 1 .. g.end_line] | s + l + '\n')})
          WHERE x.doc_id IS NOT NULL] AS spans
}
RETURN iid AS item_id, i.profile_id AS profile_id, req.id AS requirement_id, req.ordinal AS ordinal,
       req.text AS text, facts, [(req)-[:STATED_IN]->(t:Turn) | t.id] AS statement_turns, spans,
       a.answer AS answer, a.status AS status
ORDER BY item_id, ordinal
