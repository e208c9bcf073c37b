// $rows: {seq, answer_id, qa_run_id, item_id, answer, notes, fed_unit_ids, fed_session_ids, model, prompt_sha256,
//         tokens_in, tokens_out, reader_ms, details_json, fed_memory_ids and exchange (absent
//         when none)}
// The reader's answer to one question, in its run, tied to the item and to the sessions it was fed (rank = order)
// and, on the memory-systems line, to the memories it was fed (FED_MEMORY, rank = search order).
UNWIND $rows AS row
MATCH (r:QaRun {id: row.qa_run_id})
MATCH (i:Item {id: row.item_id})
MERGE (a:QaAnswer {id: row.answer_id})
ON CREATE SET a.seq = row.seq
SET a.qa_run_id = row.qa_run_id, a.item_id = row.item_id, a.answer = row.answer, a.notes = row.notes,
    a.fed_unit_ids = row.fed_unit_ids, a.model = row.model, a.prompt_sha256 = row.prompt_sha256,
    a.tokens_in = row.tokens_in, a.tokens_out = row.tokens_out, a.reader_ms = row.reader_ms,
    a.details = row.details_json, a.exchange = row.exchange, a.updated_seq = row.seq
MERGE (a)-[ir:IN_QA_RUN]->(r)
ON CREATE SET ir.seq = row.seq
MERGE (a)-[an:ANSWERS]->(i)
ON CREATE SET an.seq = row.seq
WITH a, row
CALL (a, row) {
  UNWIND range(0, size(row.fed_session_ids) - 1) AS n
  MATCH (s:Session {id: row.fed_session_ids[n]})
  MERGE (a)-[f:FED]->(s)
  ON CREATE SET f.seq = row.seq, f.rank = n + 1
  RETURN count(*) AS n_fed
}
WITH a, row, n_fed WHERE n_fed = size(row.fed_session_ids)
CALL (a, row) {
  WITH coalesce(row.fed_memory_ids, []) AS ids
  UNWIND range(0, size(ids) - 1) AS n
  MATCH (m:Memory {id: ids[n]})
  MERGE (a)-[f:FED_MEMORY]->(m)
  ON CREATE SET f.seq = row.seq, f.rank = n + 1
  RETURN count(*) AS n_memories
}
WITH row, n_memories WHERE n_memories = size(coalesce(row.fed_memory_ids, []))
RETURN collect(row.answer_id) AS applied
