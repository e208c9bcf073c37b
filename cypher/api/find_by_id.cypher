// Nodes whose id is exactly $id or starts with $id, across the labels a person browses (index seeks only).
CALL () {
  MATCH (n:Item) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Requirement) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Profile) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Fact) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Topic) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Session) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Turn) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Document) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Chunk) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Memory) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:State) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Run) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Attempt) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:ToolCall) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Judgment) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
  UNION MATCH (n:Adjudication) WHERE n.id STARTS WITH $id RETURN n LIMIT $limit
}
WITH elementId(n) AS eid, labels(n) AS labels, n.id AS id,
       coalesce(n.title, n.question, n.name, n.text, n.tool, n.verdict, n.method, n.id) AS caption,
       CASE WHEN n.id = $id THEN 2.0 ELSE 1.0 END AS score,
       // a turn stating an item's reference answer: its text (the caption) is gold
       n:Turn AND coalesce(n.metadata, '') CONTAINS '"reference_answer_of"' AS gold_text
ORDER BY score DESC, size(n.id), n.id
LIMIT $limit
RETURN collect({eid: eid, labels: labels, id: id, caption: caption, score: score, gold_text: gold_text}) AS rows
