// The judgments of an attempt, oldest first.
MATCH (:Attempt {id: $attempt_id})-[:JUDGED_BY]->(j:Judgment)
RETURN j {.*} AS judgment
ORDER BY j.seq
