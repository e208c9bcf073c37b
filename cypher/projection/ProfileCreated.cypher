// $rows: {seq, profile_id, dataset, name, description, attributes_json}
UNWIND $rows AS row
CREATE (p:Profile {id: row.profile_id, seq: row.seq, dataset: row.dataset, name: row.name,
                   description: row.description, attributes: row.attributes_json})
RETURN collect(row.profile_id) AS applied
