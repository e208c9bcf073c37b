// Many attempts at once ($attempt_ids): each attempt's properties, its tool calls in order (each with what it
// returned and its response cut to $response_chars characters) and its judgments, oldest first. One query
// per chunk of attempts, not one per attempt.
UNWIND $attempt_ids AS attempt_id
MATCH (a:Attempt {id: attempt_id})
CALL (a) {
  OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall)
  WITH c ORDER BY c.round, c.ordinal
  CALL (c) {
    OPTIONAL MATCH (c)-[r:RETURNED]->(n)
    WITH r, n ORDER BY r.kind, r.rank
    RETURN [x IN collect({kind: r.kind, id: n.id, rank: r.rank, start_line: r.start_line, end_line: r.end_line})
            WHERE x.id IS NOT NULL] AS returned
  }
  RETURN collect(c {.*, response: left(coalesce(c.response, ''), $response_chars), returned: returned}) AS calls
}
CALL (a) {
  OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment)
  WITH j ORDER BY j.seq
  RETURN collect(j {.*}) AS judgments
}
RETURN a.id AS attempt_id, a {.*} AS attempt, calls, judgments
