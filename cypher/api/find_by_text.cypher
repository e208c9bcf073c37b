// Full-text search over browsable nodes: $query is plain terms (the caller strips Lucene syntax). Requirement
// texts are gold: without $gold_visible no Requirement is found by its words (not even that one matches).
CALL () {
  CALL db.index.fulltext.queryNodes('node_search', $query, {limit: $limit}) YIELD node, score
  RETURN node AS n, score
  UNION ALL
  CALL db.index.fulltext.queryNodes('document_title', $query, {limit: $limit}) YIELD node, score
  RETURN node AS n, score
  UNION ALL
  CALL db.index.fulltext.queryNodes('memory_text', $query, {limit: $limit}) YIELD node, score
  RETURN node AS n, score
}
WITH n, score WHERE $gold_visible OR NOT n:Requirement
WITH elementId(n) AS eid, labels(n) AS labels, n.id AS id,
       coalesce(n.title, n.question, n.name, n.text, n.id) AS caption, score
ORDER BY score DESC, n.id
LIMIT $limit
RETURN collect({eid: eid, labels: labels, id: id, caption: caption, score: score}) AS rows
