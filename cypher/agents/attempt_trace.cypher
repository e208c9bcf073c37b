// One attempt with its tool calls in order, each with what it returned (ids, ranks, line ranges).
MATCH (a:Attempt {id: $attempt_id})
OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall)
WITH a, c ORDER BY c.round, c.ordinal
CALL (c) {
  OPTIONAL MATCH (c)-[r:RETURNED]->(n)
  WITH r, n ORDER BY r.kind, r.rank
  RETURN [x IN collect({kind: r.kind, id: n.id, rank: r.rank, start_line: r.start_line, end_line: r.end_line})
          WHERE x.id IS NOT NULL] AS returned
}
RETURN a {.*} AS attempt, collect(c {.*, returned: returned}) AS calls
