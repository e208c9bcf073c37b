// $ids: tool call ids -> what each call returned: documents (with line ranges), then memories, then states,
// each by rank (ranks count within a kind).
MATCH (c:ToolCall)-[r:RETURNED]->(n) WHERE c.id IN $ids
WITH c, r, n, CASE WHEN n:Document THEN 'Document' WHEN n:Memory THEN 'Memory' ELSE 'State' END AS label
WITH c.id AS key,
       {label: label, id: n.id, rank: r.rank, start_line: r.start_line, end_line: r.end_line} AS rel
ORDER BY CASE label WHEN 'Document' THEN 0 WHEN 'Memory' THEN 1 ELSE 2 END, r.rank, n.id
RETURN collect({key: key, rel: rel}) AS rows
