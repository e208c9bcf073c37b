// Drop the undo records of these episodes (pairs whose events are written: a process stopped right after
// appending them left their record behind).
MATCH (u:GraphitiUndo)
WHERE u.undo_episode IN $episodes
DELETE u
