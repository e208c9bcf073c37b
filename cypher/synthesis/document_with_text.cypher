// A document that already holds exactly $text: the one with id $doc_id first, else any other (a KB document).
MATCH (d:Document)
WHERE d.id = $doc_id OR d.text = $text
RETURN d.id AS doc_id
ORDER BY CASE WHEN d.id = $doc_id THEN 0 ELSE 1 END, d.id
LIMIT 1
