// Every answer of a QA run with its latest verdict (null when not judged yet), for resume and summaries.
MATCH (a:QaAnswer)-[:IN_QA_RUN]->(:QaRun {id: $qa_run_id})
OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:QaJudgment)
WITH a, j ORDER BY j.updated_seq DESC
WITH a, head(collect(j)) AS j
RETURN a.id AS answer_id, a.item_id AS item_id, a.answer AS answer, a.tokens_in AS tokens_in,
       a.tokens_out AS tokens_out, a.reader_ms AS reader_ms, a.details AS details,
       j.correct AS correct, j.rule AS rule, j.valid AS valid, j.tokens_in AS judge_tokens_in,
       j.tokens_out AS judge_tokens_out
ORDER BY a.item_id
