// Benchmark: documents and chunks in the graph.
CALL () { MATCH (d:Document) RETURN count(d) AS n_docs }
CALL () { MATCH (c:Chunk) RETURN count(c) AS n_chunks }
RETURN n_docs, n_chunks
