// $rows: {seq, item_id, profile_id, dataset, question, reference_answer, asked_at, question_type,
//         support_doc_ids, history_doc_ids, batch, labels, metadata_json}
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CREATE (i:Item {id: row.item_id, seq: row.seq, profile_id: row.profile_id, dataset: row.dataset,
                question: row.question, reference_answer: row.reference_answer, asked_at: row.asked_at,
                question_type: row.question_type, batch: row.batch, labels: row.labels,
                metadata: row.metadata_json})
CREATE (i)-[:FOR_PROFILE {seq: row.seq}]->(p)
WITH i, row
CALL (i, row) {
  UNWIND row.support_doc_ids AS did
  MATCH (d:Document {id: did})
  CREATE (i)-[:SUPPORTED_BY {seq: row.seq}]->(d)
  RETURN count(*) AS n_support
}
CALL (i, row) {
  UNWIND row.history_doc_ids AS did
  MATCH (d:Document {id: did})
  CREATE (i)-[:USES_HISTORY_DOC {seq: row.seq}]->(d)
  RETURN count(*) AS n_history
}
WITH row, n_support, n_history
WHERE n_support = size(row.support_doc_ids) AND n_history = size(row.history_doc_ids)
RETURN collect(row.item_id) AS applied
