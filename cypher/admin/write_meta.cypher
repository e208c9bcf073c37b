MERGE (m:ProjectionMeta {id: 'projection'})
SET m.encoder_id = $encoder_id, m.dim = $dim, m.schema_version = $schema_version
