// HYBRID's two knowledge channels over the whole graph (no corpus filter) in one statement, fused with RRF.
// Each channel is exactly semantic_chunks_index_all / keyword_chunks_all: $limit chunks from its index
// (vector chunk_embedding for $vector, full-text $index (chunk_text or chunk_text_plain) for $lucene), grouped by document (a document's
// best chunk: the highest score, ties by chunk id), its best $depth documents. Fusion as query/fusion.py: s(d) = Σ 1/($kappa + rank)
// over the channels that list d, ordered by s, then d's best rank, then the channel it has it in (semantic
// first), then id; the top $k are returned. A row's snippet is its best chunk in the channel where it ranks
// best (semantic on ties), `ranks` its [channel, rank] pairs (channel 0 = semantic, 1 = keyword); every row carries
// the two channels' list lengths (n_semantic, n_keyword: documents each fused, at most $depth; no row: both 0)
// and n_keyword_hits, the keyword chunks of the fused documents (with n_keyword < $depth: every chunk the index
// returned). The keyword index is read $keyword_limit chunks deep (the caller deepens it to fill $depth).
CALL () {
  CALL db.index.vector.queryNodes('chunk_embedding', $limit, $vector) YIELD node AS c, score
  WITH c.doc_id AS doc_id, collect({c: c, s: score}) AS hits, max(score) AS score
  ORDER BY score DESC, doc_id
  LIMIT $depth
  WITH doc_id, reduce(b = null, h IN hits |
    CASE WHEN b IS NULL OR h.s > b.s OR (h.s = b.s AND h.c.id < b.c.id) THEN h ELSE b END).c AS best
  RETURN collect({doc_id: doc_id, best: best}) AS semantic
}
CALL () {
  CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $keyword_limit}) YIELD node AS c, score
  WITH c.doc_id AS doc_id, collect({c: c, s: score}) AS hits, max(score) AS score
  ORDER BY score DESC, doc_id
  LIMIT $depth
  WITH doc_id, size(hits) AS n_hits, reduce(b = null, h IN hits |
    CASE WHEN b IS NULL OR h.s > b.s OR (h.s = b.s AND h.c.id < b.c.id) THEN h ELSE b END).c AS best
  RETURN collect({doc_id: doc_id, best: best}) AS keyword, sum(n_hits) AS n_keyword_hits
}
WITH semantic, keyword, n_keyword_hits, size(semantic) AS n_semantic, size(keyword) AS n_keyword
UNWIND [i IN range(0, size(semantic) - 1) | {doc_id: semantic[i].doc_id, best: semantic[i].best, channel: 0,
                                              rank: i + 1}]
     + [i IN range(0, size(keyword) - 1) | {doc_id: keyword[i].doc_id, best: keyword[i].best, channel: 1,
                                           rank: i + 1}] AS hit
WITH n_semantic, n_keyword, n_keyword_hits, hit.doc_id AS doc_id, collect(hit) AS hits
// first: the hit with the document's best rank (semantic on ties); it decides ties and gives the snippet
WITH n_semantic, n_keyword, n_keyword_hits, doc_id, hits, reduce(s = 0.0, h IN hits | s + 1.0 / ($kappa + h.rank)) AS score,
     reduce(b = null, h IN hits |
       CASE WHEN b IS NULL OR h.rank < b.rank OR (h.rank = b.rank AND h.channel < b.channel) THEN h ELSE b END
     ) AS first
ORDER BY score DESC, first.rank, first.channel, doc_id
LIMIT $k
RETURN doc_id, score, [h IN hits | [h.channel, h.rank]] AS ranks, first.rank AS best_rank,
       first.channel AS best_channel, first.best.id AS chunk_id, first.best.doc_title AS title,
       first.best.start_line AS start_line, first.best.end_line AS end_line, first.best.text AS text,
       n_semantic, n_keyword, n_keyword_hits
