// The memory cards of system $system derived from any of $turn_ids (which unit holds a gold turn).
UNWIND $turn_ids AS tid
MATCH (m:Memory {system: $system})-[:DERIVED_FROM]->(:Turn {id: tid})
WHERE NOT coalesce(m.deleted, false)
RETURN tid AS turn_id, m.id AS memory_id
