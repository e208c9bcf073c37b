// How many chunks and documents the graph holds (from the count store).
CALL () { MATCH (c:Chunk) RETURN count(c) AS n }
CALL () { MATCH (d:Document) RETURN count(d) AS n_docs }
RETURN n, n_docs
