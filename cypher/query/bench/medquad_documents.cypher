// Benchmark: how many MedQuAD documents the graph holds (is the shared knowledge base ingested?).
MATCH (d:Document) WHERE d.source = 'MedQuAD' RETURN count(d) AS n
