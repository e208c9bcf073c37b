// $ids: document ids -> the answer requirements grounded in each document, with the line range.
MATCH (n:Requirement)-[g:GROUNDED_IN]->(d:Document) WHERE d.id IN $ids
WITH d.id AS key, n {.*} AS node, {start_line: g.start_line, end_line: g.end_line} AS rel
ORDER BY n.item_id, n.ordinal, g.start_line
RETURN collect({key: key, node: node, rel: rel}) AS rows
