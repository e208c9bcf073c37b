// Answered attempts of a run that a judge's endpoint error left without that judge's judgment (the run's
// judge-role errors, beside the attempts in error).
MATCH (a:Attempt)-[:IN_RUN]->(:Run {id: $run_id})
WHERE a.status = 'answered'
MATCH (a)-[:FAILED_WITH]->(f:EndpointFailure)
WHERE f.role STARTS WITH 'judge' AND f.stage STARTS WITH 'judge:'
WITH a, substring(f.stage, 6) AS kind
WHERE NOT EXISTS { (a)-[:JUDGED_BY]->(j:Judgment) WHERE j.kind = kind }
RETURN count(DISTINCT a) AS n
