// $rows: {seq, item_id, gate, verdict, details_json}
UNWIND $rows AS row
MATCH (i:Item {id: row.item_id})
SET i.verifications = coalesce(i.verifications, []) + [row.gate + ':' + row.verdict], i.verified_seq = row.seq
RETURN collect(row.item_id) AS applied
