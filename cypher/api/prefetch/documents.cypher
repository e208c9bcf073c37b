// $ids: document ids -> one row per document found: its node (as nodes/document) and, only when asked for, the
// turns that exposed it ($exposures; as rel/document_exposures), the items it supports ($supports; as
// rel/document_supports), the requirements grounded in it ($grounds; as rel/document_grounds), its related
// documents ($related; as rel/document_related) and the text of the line ranges in $spans ([{key, start_line,
// end_line}], as rel/document_lines). One query answers the document page; each list is ordered exactly as the
// rel/ query whose loader it primes.
MATCH (d:Document) WHERE d.id IN $ids
CALL (d) {
  OPTIONAL MATCH (t:Turn)-[e:EXPOSED]->(d) WHERE $exposures
  WITH t, e ORDER BY e.seq, e.rank
  RETURN collect(CASE WHEN e IS NULL THEN null ELSE
    {turn_id: t.id, doc_id: d.id, doc_title: d.title, via: e.via, start_line: e.start_line, end_line: e.end_line,
     query: e.query, rank: e.rank, seq: e.seq} END) AS exposures
}
CALL (d) {
  OPTIONAL MATCH (n:Item)-[:SUPPORTED_BY]->(d) WHERE $supports
  WITH n ORDER BY n.id
  RETURN collect(n {.*}) AS supports
}
CALL (d) {
  OPTIONAL MATCH (n:Requirement)-[g:GROUNDED_IN]->(d) WHERE $grounds
  WITH n, g ORDER BY n.item_id, n.ordinal, g.start_line
  RETURN collect(CASE WHEN n IS NULL THEN null ELSE
    {node: n {.*}, rel: {start_line: g.start_line, end_line: g.end_line}} END) AS grounds
}
CALL (d) {
  OPTIONAL MATCH (d)-[r:RELATED]-(n:Document) WHERE $related
  WITH r, n ORDER BY r.weight DESC, n.id
  RETURN collect(CASE WHEN n IS NULL THEN null ELSE
    {node: n {.*, text: null},
     rel: {description: r.description, weight: r.weight, outgoing: startNode(r) = d, seq: r.seq}} END) AS related
}
CALL (d) {
  UNWIND $spans AS span
  RETURN collect({key: span.key, n_lines: d.n_lines,
                  lines: split(d.text, '\n')[span.start_line - 1 .. span.end_line]}) AS lines
}
RETURN collect({key: d.id, node: d {.*, text: null}, exposures: exposures, supports: supports, grounds: grounds,
                related: related, lines: lines}) AS rows
