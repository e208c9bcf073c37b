// Relationships among Graphiti's own Entity and Episodic nodes, per type.
MATCH (a)-[r]->(b)
WHERE (a:Entity OR a:Episodic) AND (b:Entity OR b:Episodic)
RETURN type(r) AS type, count(r) AS n
