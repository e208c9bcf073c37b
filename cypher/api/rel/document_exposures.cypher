// $ids: document ids -> the turns that exposed each document, how, and which lines.
MATCH (t:Turn)-[e:EXPOSED]->(d:Document) WHERE d.id IN $ids
WITH d.id AS key, {turn_id: t.id, doc_id: d.id, doc_title: d.title, via: e.via, start_line: e.start_line,
                     end_line: e.end_line, query: e.query, rank: e.rank, seq: e.seq} AS rel
ORDER BY e.seq, e.rank
RETURN collect({key: key, rel: rel}) AS rows
