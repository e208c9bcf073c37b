// The vector and full-text indexes of schema/04_search, dropped for a rebuild: populating them once after
// the replay is faster than updating them on every replayed transaction.
DROP INDEX chunk_embedding IF EXISTS;
DROP INDEX memory_embedding IF EXISTS;
DROP INDEX chunk_text IF EXISTS;
DROP INDEX chunk_text_plain IF EXISTS;
DROP INDEX document_title IF EXISTS;
DROP INDEX memory_text IF EXISTS;
DROP INDEX node_search IF EXISTS;
