// $rows: {seq, tool_call_id, attempt_id, round, ordinal, tool, arguments_json, ok, error, recipe, response,
//         returned: [{kind, id, rank, start_line, end_line}], exchange (absent in old logs)}
// Every returned id must resolve: documents (with a line range inside the document), or memories and
// states of the attempt's own profile.
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})
CREATE (c:ToolCall {id: row.tool_call_id, seq: row.seq, attempt_id: row.attempt_id, round: row.round,
                    ordinal: row.ordinal, tool: row.tool, arguments: row.arguments_json, ok: row.ok,
                    error: row.error, recipe: row.recipe, response: row.response,
                    n_returned: size(row.returned), exchange: row.exchange})
CREATE (a)-[:CALLED {seq: row.seq}]->(c)
WITH a, c, row
CALL (a, c, row) {
  UNWIND row.returned AS ret
  CALL (a, ret) {
    MATCH (n:Document {id: ret.id})
    WHERE ret.kind = 'document' AND (ret.end_line IS NULL OR ret.end_line <= n.n_lines)
      AND (ret.start_line IS NULL OR ret.end_line IS NULL OR ret.start_line <= ret.end_line)
    RETURN n
  UNION
    MATCH (n:Memory {id: ret.id})
    WHERE ret.kind = 'memory' AND n.profile_id = a.profile_id
    RETURN n
  UNION
    MATCH (n:State {id: ret.id})
    WHERE ret.kind = 'state' AND n.profile_id = a.profile_id
    RETURN n
  }
  CREATE (c)-[:RETURNED {kind: ret.kind, rank: ret.rank, start_line: ret.start_line, end_line: ret.end_line,
                         seq: row.seq}]->(n)
  RETURN count(*) AS n_returned
}
WITH row, n_returned WHERE n_returned = size(row.returned)
RETURN collect(row.tool_call_id) AS applied
