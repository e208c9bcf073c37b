// Which of these verdict ids are already in the graph (resume).
UNWIND $ids AS jid
MATCH (j:MemoryJudgment {id: jid})
RETURN j.id AS id
