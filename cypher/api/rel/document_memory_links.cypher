// $ids: document ids -> the memory cards linking to each document.
MATCH (n:Memory)-[l:LINKS_TO]->(d:Document) WHERE d.id IN $ids
WITH d.id AS key, n {.*, embedding: null} AS node,
       {doc_id: d.id, doc_title: d.title, kind: l.kind, rank: l.rank, score: l.score, builder: l.builder} AS rel
ORDER BY n.system, n.id, l.rank
RETURN collect({key: key, node: node, rel: rel}) AS rows
