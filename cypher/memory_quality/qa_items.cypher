// The questions of the profiles that have a reference answer (the memory QA axis). `question` and
// `reference_answer` are gold: they go to the judge endpoint only, never into events, logs or reports.
UNWIND $profile_ids AS pid
MATCH (i:Item)-[:FOR_PROFILE]->(:Profile {id: pid})
WHERE i.reference_answer IS NOT NULL AND trim(i.reference_answer) <> ''
RETURN pid AS profile_id, i.id AS item_id, i.question AS question, i.reference_answer AS reference_answer,
       i.question_type AS question_type, i.asked_at AS asked_at
ORDER BY pid, item_id
