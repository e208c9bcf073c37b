// Every profile id, in id order.
MATCH (p:Profile)
RETURN p.id AS id
ORDER BY id
