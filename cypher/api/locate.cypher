// Every node with id $id among the projected labels (an id is unique within a label, rarely across labels);
// long texts are cut to $text_chars characters.
CALL () {
  MATCH (n:Item {id: $id}) RETURN n
  UNION MATCH (n:Requirement {id: $id}) RETURN n
  UNION MATCH (n:Profile {id: $id}) RETURN n
  UNION MATCH (n:Fact {id: $id}) RETURN n
  UNION MATCH (n:Topic {id: $id}) RETURN n
  UNION MATCH (n:Session {id: $id}) RETURN n
  UNION MATCH (n:Turn {id: $id}) RETURN n
  UNION MATCH (n:Document {id: $id}) RETURN n
  UNION MATCH (n:Chunk {id: $id}) RETURN n
  UNION MATCH (n:Memory {id: $id}) RETURN n
  UNION MATCH (n:State {id: $id}) RETURN n
  UNION MATCH (n:Run {id: $id}) RETURN n
  UNION MATCH (n:Attempt {id: $id}) RETURN n
  UNION MATCH (n:ToolCall {id: $id}) RETURN n
  UNION MATCH (n:Judgment {id: $id}) RETURN n
  UNION MATCH (n:Adjudication {id: $id}) RETURN n
}
WITH elementId(n) AS eid, labels(n) AS labels,
       n {.*, embedding: null, text: CASE WHEN n.text IS NULL THEN null ELSE left(n.text, $text_chars) END,
          text_chars: CASE WHEN n.text IS NULL THEN null ELSE size(n.text) END} AS props
RETURN collect({eid: eid, labels: labels, props: props}) AS rows
