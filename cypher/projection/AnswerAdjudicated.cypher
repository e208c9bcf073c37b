// $rows: {seq, adjudication_id, attempt_id, judgment_id, verdict, adjudicator, reason, adjudicated_at}
// A person's ruling on an accuracy verdict of the attempt: (Attempt)-[:ADJUDICATED_BY]->(Adjudication) and
// (Judgment)-[:RESOLVED_BY]->(Adjudication). The latest one is mirrored on the attempt as `adjudicated_verdict`.
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})-[:JUDGED_BY]->(j:Judgment {id: row.judgment_id, kind: 'accuracy'})
CREATE (d:Adjudication {id: row.adjudication_id, seq: row.seq, attempt_id: row.attempt_id,
                        judgment_id: row.judgment_id, verdict: row.verdict, adjudicator: row.adjudicator,
                        reason: row.reason, adjudicated_at: row.adjudicated_at})
CREATE (a)-[:ADJUDICATED_BY {seq: row.seq}]->(d)
CREATE (j)-[:RESOLVED_BY {seq: row.seq}]->(d)
SET a.adjudicated_verdict = row.verdict, a.adjudication_seq = row.seq
RETURN collect(row.adjudication_id) AS applied
