// $ids: item ids -> one row per item found: its node (as nodes/item) and, only when asked for, its profile node
// ($profile; as nodes/profile), support and history documents ($support, $history; as rel/item_support_documents
// and rel/item_history_documents) and requirement subtree ($requirements): each requirement with its statements
// (and their sessions), facts (and the turns that disclosed them) and knowledge spans (with their lines). One
// query answers the item provenance shape; each list is ordered exactly as the rel/ query whose loader it primes.
MATCH (i:Item) WHERE i.id IN $ids
CALL (i) {
  OPTIONAL MATCH (p:Profile {id: i.profile_id}) WHERE $profile
  RETURN p {.*, embedding: null} AS profile
}
CALL (i) {
  OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(n:Document) WHERE $support
  WITH n ORDER BY n.id
  RETURN collect(n {.*, text: null}) AS support
}
CALL (i) {
  OPTIONAL MATCH (i)-[:USES_HISTORY_DOC]->(n:Document) WHERE $history
  WITH n ORDER BY n.id
  RETURN collect(n {.*, text: null}) AS history
}
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(r:Requirement) WHERE $requirements
  CALL (r) {
    OPTIONAL MATCH (r)-[:STATED_IN]->(t:Turn)
    OPTIONAL MATCH (s:Session {id: t.session_id})
    WITH t, s ORDER BY t.seq
    RETURN collect(CASE WHEN t IS NULL THEN null ELSE {turn: t {.*}, session: s {.*, embedding: null}} END) AS statements
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
  WITH r, statements, facts, spans ORDER BY r.ordinal
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE
    {node: r {.*}, statements: statements, facts: facts, spans: spans} END) AS requirements
}
RETURN collect({key: i.id, node: i {.*, embedding: null}, profile: profile, support: support, history: history,
                requirements: requirements}) AS rows
