// The linked documents of memory cards, neighbours first then history reads, each list in its rank order,
// restricted to the corpus ($sources / $prefixes / $doc_ids, null = no filter).
UNWIND $memory_ids AS mid
MATCH (:Memory {id: mid})-[l:LINKS_TO]->(d:Document)
WHERE ($sources IS NULL OR d.source IN $sources)
  AND ($prefixes IS NULL OR any(p IN $prefixes WHERE d.id STARTS WITH p))
  AND ($doc_ids IS NULL OR d.id IN $doc_ids)
WITH mid, d.id AS doc_id, l
ORDER BY mid, CASE l.kind WHEN 'neighbor' THEN 0 ELSE 1 END, l.rank
RETURN mid AS memory_id, collect(doc_id) AS doc_ids
