// One attempt's progress in the shape of run_progress's `attempts` entries (no row when it was never started):
// read again by a worker right after it claims the attempt, so work another worker finished is not repeated.
MATCH (a:Attempt {id: $attempt_id})
CALL (a) {
  OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment)
  RETURN collect(j.id) AS judgment_ids
}
CALL (a) {
  OPTIONAL MATCH (a)-[:OF_ITEM]->(i:Item)
  RETURN {question_type: i.question_type, labels: i.labels, metadata: i.metadata} AS item
}
RETURN {item_id: a.item_id, status: a.status, verdict: a.verdict, judgment_ids: judgment_ids,
        flags: coalesce(a.flags, []), usage: a.usage, item: item} AS attempt
