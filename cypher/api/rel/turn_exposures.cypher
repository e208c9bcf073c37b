// $ids: turn ids -> the document spans each turn exposed (search results and reads).
MATCH (t:Turn)-[e:EXPOSED]->(d:Document) WHERE t.id IN $ids
WITH t.id AS key, {turn_id: t.id, doc_id: d.id, doc_title: d.title, via: e.via, start_line: e.start_line,
                     end_line: e.end_line, query: e.query, rank: e.rank, seq: e.seq} AS rel
ORDER BY e.seq, e.rank
RETURN collect({key: key, rel: rel}) AS rows
