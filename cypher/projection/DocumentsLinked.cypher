// $rows: {seq, src_doc_id, dst_doc_id, description, weight}
UNWIND $rows AS row
MATCH (a:Document {id: row.src_doc_id})
MATCH (b:Document {id: row.dst_doc_id})
CREATE (a)-[:RELATED {description: row.description, weight: row.weight, seq: row.seq}]->(b)
RETURN collect(row.src_doc_id + '->' + row.dst_doc_id) AS applied
