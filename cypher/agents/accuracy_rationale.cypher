// The latest accuracy judgment of an attempt (verdict and rationale), for the error analysis.
MATCH (:Attempt {id: $attempt_id})-[:JUDGED_BY]->(j:Judgment {kind: 'accuracy'})
WHERE NOT coalesce(j.details, '') CONTAINS '"panel":true'  // a judge panel's verdict is not the attempt's
RETURN j.verdict AS verdict, j.rationale AS rationale
ORDER BY j.seq DESC
LIMIT 1
