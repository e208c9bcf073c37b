// Items whose reference answer or a requirement text appears verbatim in a turn they can see; `evidence` says
// the turn is one the item's requirements cite (STATED_IN: an answer quoted from its evidence, not a leak).
// $rows: {item_id, cut_session, cut_turn} (cut_session null = the whole profile history is visible).
// $min_contained: gold at least this long counts when contained in a turn; shorter gold only when equal.
// Returns ids and the kind of gold only, never the gold text.
UNWIND $rows AS row
MATCH (i:Item {id: row.item_id})
OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(r:Requirement)
OPTIONAL MATCH (r)-[:STATED_IN]->(cited:Turn)
WITH i, row, collect(DISTINCT cited.id) AS cited_ids, collect(DISTINCT r) AS reqs
WITH i, row, cited_ids,
     [g IN [{kind: 'reference_answer', id: i.id, text: i.reference_answer}] +
           [r IN reqs | {kind: 'requirement', id: r.id, text: r.text}]
      WHERE g.text IS NOT NULL AND size(trim(g.text)) > 0 | {kind: g.kind, id: g.id, text: trim(g.text)}] AS gold
MATCH (:Profile {id: i.profile_id})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
WHERE row.cut_session IS NULL OR s.ordinal < row.cut_session
      OR (s.ordinal = row.cut_session AND t.ordinal <= row.cut_turn)
WITH i, t, trim(coalesce(t.text, '')) AS turn_text, gold, cited_ids
UNWIND gold AS g
WITH i, t, turn_text, g, cited_ids
WHERE turn_text = g.text OR (size(g.text) >= $min_contained AND turn_text CONTAINS g.text)
RETURN i.id AS item_id, i.profile_id AS profile_id, i.dataset AS dataset, g.kind AS kind, g.id AS gold_id,
       t.id AS turn_id, t.id IN cited_ids AS evidence
ORDER BY item_id, turn_id, gold_id
