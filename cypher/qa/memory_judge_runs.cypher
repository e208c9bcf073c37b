// How many judge runs a memory-systems QA run has recorded (its highest judge run), for the report.
MATCH (j:QaJudgment {qa_run_id: $qa_run_id})
RETURN max(coalesce(j.judge_run, 1)) AS n
