// Names of Graphiti entity nodes by uuid (the endpoints of fact edges).
MATCH (n:Entity)
WHERE n.uuid IN $uuids
RETURN n.uuid AS uuid, n.name AS name
