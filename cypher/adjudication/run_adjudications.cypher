// The latest adjudication of each attempt of run $run_id (the ruling that counts).
MATCH (:Run {id: $run_id})<-[:IN_RUN]-(a:Attempt)-[:ADJUDICATED_BY]->(d:Adjudication)
WITH a, d ORDER BY d.seq DESC
WITH a, head(collect(d)) AS latest
RETURN a.item_id AS item_id, latest.id AS adjudication_id, latest.verdict AS verdict,
       latest.judgment_id AS judgment_id
