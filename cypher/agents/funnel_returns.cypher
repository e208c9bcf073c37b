// What each attempt of a run got back from its successful tool calls (ids, kinds, line ranges).
MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $run_id})
MATCH (a)-[:CALLED]->(c:ToolCall)-[ret:RETURNED]->(n)
WHERE c.ok
RETURN a.item_id AS item_id, c.tool AS tool, ret.kind AS kind, n.id AS id, ret.start_line AS start_line,
       ret.end_line AS end_line
