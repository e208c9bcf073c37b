// $ids: item ids -> every requirement with its statements (and their sessions), facts (and the turns that
// disclosed them) and knowledge spans (with their lines), in one query. Each list is ordered exactly as the
// matching rel/ query orders it, because its rows prime that query's loader.
MATCH (i:Item)-[:HAS_REQUIREMENT]->(r:Requirement) WHERE i.id IN $ids
CALL (r) {
  OPTIONAL MATCH (r)-[:STATED_IN]->(t:Turn)
  OPTIONAL MATCH (s:Session {id: t.session_id})
  WITH t, s ORDER BY t.seq
  RETURN collect(CASE WHEN t IS NULL THEN null ELSE {turn: t {.*}, session: s {.*}} END) AS statements
}
CALL (r) {
  OPTIONAL MATCH (r)-[:USES_FACT]->(f:Fact)
  WITH f ORDER BY f.seq, f.id
  CALL (f) {
    OPTIONAL MATCH (t:Turn)-[:DISCLOSES]->(f)
    WITH t ORDER BY t.seq
    RETURN collect(t {.*}) AS disclosed
  }
  RETURN collect(CASE WHEN f IS NULL THEN null ELSE {fact: f {.*}, disclosed: disclosed} END) AS facts
}
CALL (r) {
  OPTIONAL MATCH (r)-[g:GROUNDED_IN]->(d:Document)
  WITH g, d ORDER BY g.seq, d.id, g.start_line
  RETURN collect(CASE WHEN d IS NULL THEN null ELSE
    {doc_id: d.id, doc_title: d.title, start_line: g.start_line, end_line: g.end_line, n_lines: d.n_lines,
     lines: split(d.text, '\n')[g.start_line - 1 .. g.end_line]} END) AS spans
}
WITH i.id AS key, r {.*} AS node, statements, facts, spans
ORDER BY key, r.ordinal
RETURN collect({key: key, node: node, statements: statements, facts: facts, spans: spans}) AS rows
