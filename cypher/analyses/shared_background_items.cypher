// $item_ids -> per item: its profile, the facts its answer requirements use (USES_FACT) and its support
// (reference) documents, for the shared-background grouping of App. C.3.
UNWIND $item_ids AS iid
MATCH (i:Item {id: iid})
CALL (i) {
  OPTIONAL MATCH (i)-[:HAS_REQUIREMENT]->(:Requirement)-[:USES_FACT]->(f:Fact)
  RETURN collect(DISTINCT f.id) AS fact_ids
}
CALL (i) {
  OPTIONAL MATCH (i)-[:SUPPORTED_BY]->(d:Document)
  RETURN collect(DISTINCT d.id) AS support_doc_ids
}
RETURN i.id AS item_id, i.profile_id AS profile_id, fact_ids, support_doc_ids
ORDER BY item_id
