// Benchmark: the bare Lucene query of the keyword channel (ids and scores of $limit chunks).
CALL db.index.fulltext.queryNodes('chunk_text', $lucene, {limit: $limit}) YIELD node, score
RETURN node.doc_id AS doc_id, score
