// Benchmark: every document with chunks and its chunk count.
MATCH (d:Document) WHERE d.n_chunks > 0 RETURN d.id AS id, d.n_chunks AS n ORDER BY id
