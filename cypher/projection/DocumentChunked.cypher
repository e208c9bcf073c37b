// $rows: {seq, doc_id, chunker, chunks: [{chunk_id, ordinal, start_line, end_line, start_char, end_char, text, embedding}]}
UNWIND $rows AS row
MATCH (d:Document {id: row.doc_id})
SET d.chunker = row.chunker, d.n_chunks = size(row.chunks)
WITH d, row
CALL (d, row) {
  UNWIND row.chunks AS c
  CREATE (ch:Chunk {id: c.chunk_id, doc_id: row.doc_id, doc_title: d.title, ordinal: c.ordinal,
                    start_line: c.start_line, end_line: c.end_line, start_char: c.start_char,
                    end_char: c.end_char, text: c.text, seq: row.seq})
  CREATE (d)-[:HAS_CHUNK {seq: row.seq}]->(ch)
  WITH ch, c
  CALL db.create.setNodeVectorProperty(ch, 'embedding', c.embedding)
  RETURN count(*) AS n_chunks
}
WITH row, n_chunks WHERE n_chunks = size(row.chunks)
RETURN collect(row.doc_id) AS applied
