// The stored text of those of $ids that are turns of the graph (an input's image turns, to compare the form in
// which their captions were joined: ingest.pipeline._caption_form_clashes).
UNWIND $ids AS id
MATCH (t:Turn {id: id})
RETURN t.id AS id, t.text AS text
