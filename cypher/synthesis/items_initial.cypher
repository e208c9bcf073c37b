// Initial items of one dataset with their requirements (text, action, facts, turns, spans); the caller keeps
// those of its synthesis (from metadata).
MATCH (i:Item {dataset: $dataset, batch: 'initial'})
OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(d:Document)
WITH i, collect(DISTINCT d.id) AS support
OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(r:Requirement)
WITH i, support, r ORDER BY r.ordinal
WITH i, support, collect(r) AS reqs
RETURN i.id AS item_id, i.profile_id AS profile_id, i.question AS question, i.reference_answer AS reference_answer,
       i.question_type AS question_type, i.metadata AS metadata, support AS support_doc_ids,
       [r IN reqs | {text: r.text, action: r.action,
                     fact_ids: [(r)-[:USES_FACT]->(f:Fact) | f.id],
                     turn_ids: [(r)-[:STATED_IN]->(t:Turn) | t.id],
                     spans: [(r)-[g:GROUNDED_IN]->(d:Document) | {doc_id: d.id, start_line: g.start_line,
                                                                   end_line: g.end_line}]}] AS requirements
ORDER BY i.id
