MATCH (m:ProjectionMeta {id: 'projection'})
DELETE m
