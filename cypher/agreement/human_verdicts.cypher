// $run_id -> the latest human adjudication (highest seq) of each attempt of the run that has one:
// (:Attempt)-[:ADJUDICATED_BY]->(:Adjudication {verdict: 'pass'|'fail', adjudicator, judgment_id, seq}).
// Empty until adjudications exist. The adjudicator's reason is gold and is not read here.
MATCH (:Run {id: $run_id})<-[:IN_RUN]-(a:Attempt)-[:ADJUDICATED_BY]->(h:Adjudication)
WITH a, h ORDER BY h.seq DESC
WITH a, collect(h)[0] AS latest
RETURN a.id AS attempt_id, latest.verdict AS verdict, latest.adjudicator AS adjudicator,
       latest.judgment_id AS judgment_id, latest.seq AS seq
ORDER BY attempt_id
