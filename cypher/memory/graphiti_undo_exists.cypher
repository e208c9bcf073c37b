// Whether an undo record (graphiti_undo_save) is kept for this episode: Graphiti may have written it.
MATCH (h:GraphitiUndo {undo_episode: $episode, undo_kind: 'written'})
RETURN count(h) AS n
