// Benchmark: the profiles of one dataset.
MATCH (p:Profile) WHERE p.dataset = $dataset RETURN p.id AS id ORDER BY id
