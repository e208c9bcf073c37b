OPTIONAL MATCH (m:ProjectionMeta {id: 'projection'})
RETURN m.encoder_id AS encoder_id, m.dim AS dim, m.schema_version AS schema_version
