// The links A-MEM recorded for notes (metadata of their ADD: A-MEM 0.2.6 sets a note's links only when the note
// is added), by memory id.
UNWIND $memory_ids AS mid
MATCH (m:Memory {id: mid})
RETURN m.id AS memory_id, m.metadata AS metadata
