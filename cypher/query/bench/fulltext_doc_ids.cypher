// Benchmark: the documents of the first $limit chunks a keyword query reads from full-text index $index, in the
// index's order (bench/bench_kb_keyword_depth.py).
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $limit}) YIELD node, score
RETURN node.doc_id AS doc_id, score
