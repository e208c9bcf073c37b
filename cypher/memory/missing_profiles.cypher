// Which of the given profile ids do not exist.
UNWIND $profile_ids AS pid
OPTIONAL MATCH (p:Profile {id: pid})
WITH pid, p WHERE p IS NULL
RETURN collect(pid) AS missing
