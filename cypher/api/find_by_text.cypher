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
// A turn stating an item's reference answer (metadata `reference_answer_of`, an iKAT canonical response) is gold
// by its text too: not found by its words without $gold_visible.
WITH n, score,
     n:Turn AND coalesce(n.metadata, '') CONTAINS '"reference_answer_of"' AS gold_text
WHERE $gold_visible OR NOT (n:Requirement OR gold_text)
WITH elementId(n) AS eid, labels(n) AS labels, n.id AS id,
       coalesce(n.title, n.question, n.name, n.text, n.id) AS caption, score, gold_text
ORDER BY score DESC, n.id
LIMIT $limit
RETURN collect({eid: eid, labels: labels, id: id, caption: caption, score: score, gold_text: gold_text}) AS rows
