// Drop the undo records of a profile's group except the one of $keep (an episode whose pair may be redone):
// the others belong to pairs whose events are written (or to none: $keep = '' clears the group).
MATCH (u:GraphitiUndo {undo_group: $group})
WHERE u.undo_episode <> $keep
DELETE u
