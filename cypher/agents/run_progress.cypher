// A run (if it exists) and, per attempt, its status, accuracy verdict, the ids of its judgments, its flags and
// whether its error (if any) was a refusal a rerun would repeat, and the judge stages the endpoint refused.
OPTIONAL MATCH (r:Run {id: $run_id})
CALL (r) {
  OPTIONAL MATCH (a:Attempt)-[:IN_RUN]->(r)
  CALL (a) {
    OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment)
    RETURN collect(j.id) AS judgment_ids
  }
  CALL (a) {
    OPTIONAL MATCH (a)-[:FAILED_WITH]->(f:EndpointFailure)
    WHERE f.role STARTS WITH 'judge' AND f.retryable = false
    RETURN collect(DISTINCT f.stage) AS refused_judges
  }
  CALL (a) {
    // the item's traits decide which judges apply to the attempt (agents/judging/item_kinds.py)
    OPTIONAL MATCH (a)-[:OF_ITEM]->(i:Item)
    RETURN {question_type: i.question_type, labels: i.labels, metadata: i.metadata} AS item
  }
  RETURN [x IN collect({item_id: a.item_id, status: a.status, verdict: a.verdict, judgment_ids: judgment_ids,
                        flags: coalesce(a.flags, []), usage: a.usage, item: item,
                        refused_judges: refused_judges})
          WHERE x.item_id IS NOT NULL] AS attempts
}
RETURN r IS NOT NULL AS exists, r.status AS status, r.item_ids AS item_ids, r.usage AS usage, attempts
