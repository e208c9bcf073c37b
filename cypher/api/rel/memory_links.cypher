// $ids: memory ids -> their document links, semantic neighbours first, then history reads, each by rank.
MATCH (m:Memory)-[l:LINKS_TO]->(d:Document) WHERE m.id IN $ids
WITH m.id AS key,
       {doc_id: d.id, doc_title: d.title, kind: l.kind, rank: l.rank, score: l.score, builder: l.builder} AS rel
ORDER BY CASE l.kind WHEN 'neighbor' THEN 0 ELSE 1 END, l.rank
RETURN collect({key: key, rel: rel}) AS rows
