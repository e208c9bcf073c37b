// $rows: {seq, item_id, from_item_id, direction, details_json}
UNWIND $rows AS row
MATCH (i:Item {id: row.item_id})
MATCH (src:Item {id: row.from_item_id})
CREATE (i)-[:AUGMENTED_FROM {direction: row.direction, details: row.details_json, seq: row.seq}]->(src)
RETURN collect(row.item_id) AS applied
