// Before Graphiti writes one pair's episode (its own transaction), keep what that write will overwrite, so a
// pair stopped after Graphiti's write and before its events can be undone exactly (agents/memory/graphiti/undo.py).
// Params: $episode (the episode uuid), $group (its group id), $node_uuids / $edge_uuids (the Entity nodes and
// RELATES_TO edges the write saves). One header, then a copy of each of those that already exists.
MATCH (u:GraphitiUndo {undo_episode: $episode})
DELETE u;
CREATE (:GraphitiUndo {undo_episode: $episode, undo_group: $group, undo_kind: 'written',
                       undo_nodes: $node_uuids, undo_edges: $edge_uuids});
UNWIND $node_uuids AS id
MATCH (n:Entity {uuid: id})
CREATE (u:GraphitiUndo)
SET u = properties(n)
SET u.undo_episode = $episode, u.undo_group = $group, u.undo_kind = 'entity', u.undo_labels = labels(n);
UNWIND $edge_uuids AS id
MATCH (s:Entity)-[e:RELATES_TO {uuid: id}]->(t:Entity)
CREATE (u:GraphitiUndo)
SET u = properties(e)
SET u.undo_episode = $episode, u.undo_group = $group, u.undo_kind = 'fact', u.undo_source = s.uuid,
    u.undo_target = t.uuid;
