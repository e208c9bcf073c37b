// Every answer of a memory-systems QA run with all its verdicts (one per judge run), for resume and summaries.
MATCH (a:QaAnswer)-[:IN_QA_RUN]->(:QaRun {id: $qa_run_id})
OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:QaJudgment)
WITH a, j ORDER BY j.judge_run
WITH a, [x IN collect(j) WHERE x IS NOT NULL | {judge_run: x.judge_run, correct: x.correct, valid: x.valid,
         rule: x.rule, exchange: x.exchange, tokens_in: x.tokens_in, tokens_out: x.tokens_out}] AS verdicts
CALL (a) {
  OPTIONAL MATCH (a)-[f:FED_MEMORY]->(m:Memory)
  WITH m, f ORDER BY f.rank
  RETURN [x IN collect(m.id) WHERE x IS NOT NULL] AS memory_ids
}
RETURN a.id AS answer_id, a.item_id AS item_id, a.answer AS answer, a.tokens_in AS tokens_in,
       a.tokens_out AS tokens_out, a.reader_ms AS reader_ms, a.details AS details, a.exchange AS exchange,
       memory_ids, verdicts
ORDER BY a.item_id
