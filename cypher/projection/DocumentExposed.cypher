// $rows: {seq, turn_id, doc_id, via, start_line, end_line, query, rank}
UNWIND $rows AS row
MATCH (t:Turn {id: row.turn_id})
MATCH (d:Document {id: row.doc_id})
CREATE (t)-[:EXPOSED {via: row.via, start_line: row.start_line, end_line: row.end_line,
                      query: row.query, rank: row.rank, seq: row.seq}]->(d)
RETURN collect(row.doc_id + '@' + row.turn_id) AS applied
