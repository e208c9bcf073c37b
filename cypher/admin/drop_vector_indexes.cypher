DROP INDEX chunk_embedding IF EXISTS;
DROP INDEX memory_embedding IF EXISTS;
