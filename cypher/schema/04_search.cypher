// Vector and full-text indexes. $dim comes from the configured encoder.
CREATE VECTOR INDEX chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON c.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS FOR (m:Memory) ON m.embedding
  OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}};
CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.text, c.doc_title];
// The plain keyword analyzer's index (query/keyword_analyzers.py): the analyzer is pinned, not the server default.
// Neo4j keeps one full-text index per label and property list (IF NOT EXISTS would silently skip a second one
// over [c.text, c.doc_title]), so this one lists the same two properties in the other order.
CREATE FULLTEXT INDEX chunk_text_plain IF NOT EXISTS FOR (c:Chunk) ON EACH [c.doc_title, c.text]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}};
CREATE FULLTEXT INDEX document_title IF NOT EXISTS FOR (d:Document) ON EACH [d.title];
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS FOR (m:Memory) ON EACH [m.text];
CREATE FULLTEXT INDEX node_search IF NOT EXISTS FOR (n:Profile|Fact|Topic|Session|Turn|Item|Requirement|State) ON EACH [n.id, n.text, n.title, n.question, n.name];
