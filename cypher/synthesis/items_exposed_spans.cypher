// Every span of a document shown (searched or read) anywhere in a profile's history: doc id and line range.
MATCH (p:Profile {id: $profile_id})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(:Turn)-[x:EXPOSED]->(d:Document)
RETURN d.id AS doc_id, x.start_line AS start_line, x.end_line AS end_line
ORDER BY doc_id, start_line, end_line
