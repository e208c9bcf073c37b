// $ids: profile ids -> every document exposure in the profile's history (turn, document, via, line range).
MATCH (p:Profile)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)-[e:EXPOSED]->(d:Document) WHERE p.id IN $ids
WITH p.id AS key, {turn_id: t.id, doc_id: d.id, doc_title: d.title, via: e.via, start_line: e.start_line,
                     end_line: e.end_line, query: e.query, rank: e.rank, seq: e.seq} AS rel
ORDER BY e.seq, e.rank
RETURN collect({key: key, rel: rel}) AS rows
