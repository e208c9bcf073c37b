// Line counts of the documents $ids (documents that do not exist have no row).
MATCH (d:Document) WHERE d.id IN $ids
RETURN d.id AS id, d.n_lines AS n_lines
