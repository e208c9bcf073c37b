// Undo one episode's write from the copies graphiti_undo_save kept (one transaction): the facts it saved go,
// the entities it changed get back their properties, labels and name embedding, the entities it created go,
// the facts it changed come back as they were, then the episode and the copies go. Param: $episode.
MATCH (h:GraphitiUndo {undo_episode: $episode, undo_kind: 'written'})
MATCH ()-[e:RELATES_TO]->()
WHERE e.uuid IN h.undo_edges
DELETE e;
MATCH (u:GraphitiUndo {undo_episode: $episode, undo_kind: 'entity'})
MATCH (n:Entity {uuid: u.uuid})
SET n = properties(u)
REMOVE n.undo_episode, n.undo_group, n.undo_kind, n.undo_labels
WITH n, u, [l IN labels(n) WHERE NOT l IN u.undo_labels] AS extra
SET n:$(u.undo_labels)
REMOVE n:$(extra);
MATCH (u:GraphitiUndo {undo_episode: $episode, undo_kind: 'entity'})
WHERE u.name_embedding IS NOT NULL
MATCH (n:Entity {uuid: u.uuid})
CALL db.create.setNodeVectorProperty(n, 'name_embedding', u.name_embedding);
MATCH (h:GraphitiUndo {undo_episode: $episode, undo_kind: 'written'})
MATCH (n:Entity)
WHERE n.uuid IN h.undo_nodes
  AND NOT EXISTS { MATCH (u:GraphitiUndo {undo_episode: $episode, undo_kind: 'entity'}) WHERE u.uuid = n.uuid }
DETACH DELETE n;
MATCH (u:GraphitiUndo {undo_episode: $episode, undo_kind: 'fact'})
MATCH (s:Entity {uuid: u.undo_source})
MATCH (t:Entity {uuid: u.undo_target})
CREATE (s)-[e:RELATES_TO]->(t)
SET e = properties(u)
REMOVE e.undo_episode, e.undo_group, e.undo_kind, e.undo_source, e.undo_target
WITH e, u
WHERE u.fact_embedding IS NOT NULL
CALL db.create.setRelationshipVectorProperty(e, 'fact_embedding', u.fact_embedding);
MATCH (ep:Episodic {uuid: $episode})
DETACH DELETE ep;
MATCH (u:GraphitiUndo {undo_episode: $episode})
DELETE u;
