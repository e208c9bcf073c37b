// One hop around the nodes $eids: at most $per_node relationships per node (skipping the event log), ordered
// so repeated calls return the same neighbours. Long texts are cut to $text_chars characters.
MATCH (c) WHERE elementId(c) IN $eids
CALL (c) {
  MATCH (c)-[r]-(m)
  WHERE NOT m:Event AND NOT m:LogHead AND NOT m:ProjectionMeta
    AND ($labels IS NULL OR any(l IN labels(m) WHERE l IN $labels))
  RETURN r, m
  ORDER BY type(r), m.id
  LIMIT $per_node
}
WITH elementId(c) AS from_eid, elementId(r) AS rid, type(r) AS type, startNode(r) = c AS outgoing,
       properties(r) AS rel, elementId(m) AS eid, labels(m) AS labels,
       m {.*, embedding: null, text: CASE WHEN m.text IS NULL THEN null ELSE left(m.text, $text_chars) END,
          text_chars: CASE WHEN m.text IS NULL THEN null ELSE size(m.text) END} AS props
RETURN collect({
  from_eid: from_eid, rid: rid, type: type, outgoing: outgoing, rel: rel, eid: eid, labels: labels, props: props
}) AS rows
