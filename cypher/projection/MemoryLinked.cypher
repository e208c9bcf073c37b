// $rows: {seq, memory_id, builder, links: [{doc_id, kind, rank, score}], unresolved_history_reads}
// A MemoryLinked event replaces the links the same builder made earlier for that memory.
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
SET m.unresolved_history_reads = row.unresolved_history_reads, m.link_builder = row.builder
WITH m, row
CALL (m, row) {
  MATCH (m)-[old:LINKS_TO {builder: row.builder}]->()
  DELETE old
}
CALL (m, row) {
  UNWIND row.links AS link
  MATCH (d:Document {id: link.doc_id})
  CREATE (m)-[:LINKS_TO {kind: link.kind, rank: link.rank, score: link.score, builder: row.builder,
                         seq: row.seq}]->(d)
  RETURN count(*) AS n_links
}
WITH row, n_links WHERE n_links = size(row.links)
RETURN collect(row.memory_id) AS applied
