// One row per planned item of a run: the item's gold and structure, and what the attempt did, all from
// ToolCall and Judgment nodes. Knowledge searches are the ok calls of $knowledge_tools (memory-only
// searches and failed calls are excluded); a Read counts when it returned a document (non-empty text).
// The item's metadata and labels, and those of the item it was augmented from, give its admission path.
MATCH (r:Run {id: $run_id})
UNWIND r.item_ids AS iid
MATCH (i:Item {id: iid})
OPTIONAL MATCH (a:Attempt {id: $run_id + ':' + iid})
CALL (i) {
  OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(d:Document)
  RETURN collect(DISTINCT d.id) AS gold
}
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(req:Requirement)
  OPTIONAL MATCH (req)-[:USES_FACT]->(f:Fact)
  OPTIONAL MATCH (req)-[:STATED_IN]->(t:Turn)
  RETURN count(DISTINCT req) AS n_requirements, count(DISTINCT f) AS n_facts,
         count(DISTINCT t) AS n_history_pairs, count(DISTINCT t.session_id) AS n_history_sessions
}
CALL (i) {
  OPTIONAL MATCH (i)-[:AUGMENTED_FROM]->(src:Item)
  RETURN src.id AS source_item_id, src.metadata AS source_metadata, coalesce(src.labels, []) AS source_labels
  LIMIT 1
}
CALL (a) {
  OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall {tool: 'read', ok: true})-[:RETURNED]->(d:Document)
  RETURN collect(DISTINCT d.id) AS read_docs
}
CALL (a) {
  OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall)
  WHERE c.tool IN $knowledge_tools AND c.ok
  WITH c ORDER BY c.round, c.ordinal
  WITH collect(c) AS searches
  WITH searches, head(searches) AS first
  RETURN size(searches) AS n_searches,
         CASE WHEN first IS NULL THEN [] ELSE [(first)-[:RETURNED {kind: 'document'}]->(d:Document) | d.id] END
           AS first_docs,
         reduce(acc = [], s IN searches | acc + [(s)-[:RETURNED {kind: 'document'}]->(d:Document) | d.id])
           AS search_docs
}
CALL (a) {
  OPTIONAL MATCH (a)-[:CALLED]->(c:ToolCall)
  RETURN count(c) AS n_calls, count(CASE WHEN NOT c.ok THEN 1 END) AS n_failed_calls
}
CALL (a) {
  OPTIONAL MATCH (a)-[:JUDGED_BY]->(j:Judgment)
  WITH j ORDER BY j.seq
  RETURN [x IN collect({kind: j.kind, verdict: j.verdict, score: j.score, error_category: j.error_category,
                        visibility: j.visibility, valid: j.valid, judge_model: j.judge_model,
                        prompt_sha256: j.prompt_sha256, seq: j.seq, id: j.id, details: j.details})
          WHERE x.id IS NOT NULL]
         AS judgments
}
RETURN iid AS item_id, i.profile_id AS profile_id, i.batch AS batch, coalesce(i.labels, []) AS labels,
       i.metadata AS item_metadata, source_item_id, source_metadata, source_labels,
       gold, n_requirements, n_facts, n_history_pairs, n_history_sessions,
       a IS NOT NULL AS attempted, a.status AS status, a.turns AS turns, a.rounds AS rounds,
       a.tokens_in AS tokens_in, a.tokens_out AS tokens_out, a.finish AS finish,
       read_docs, first_docs, search_docs, n_searches, n_calls, n_failed_calls, judgments
ORDER BY item_id
