// $rows: {seq, doc_id, title, text, url, source, collection, publisher, metadata_json, n_lines}
UNWIND $rows AS row
CREATE (d:Document {id: row.doc_id, seq: row.seq, title: row.title, text: row.text, url: row.url,
                    source: row.source, collection: row.collection, publisher: row.publisher,
                    metadata: row.metadata_json, n_lines: row.n_lines})
RETURN collect(row.doc_id) AS applied
