// The Document.source values present in the graph, with their document counts.
MATCH (d:Document)
RETURN coalesce(d.source, '') AS source, count(*) AS n
ORDER BY source
