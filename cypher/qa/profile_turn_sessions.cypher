// Every turn of these profiles with its session and the session's date: read once per run, so the memories fed
// to an answer are dated and tied to their sessions through their source turns without a query per question.
UNWIND $profile_ids AS pid
MATCH (:Profile {id: pid})-[:HAS_SESSION]->(s:Session)-[:HAS_TURN]->(t:Turn)
RETURN t.id AS turn_id, s.id AS session_id, s.started_at AS started_at, s.ordinal AS ordinal
