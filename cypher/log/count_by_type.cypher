MATCH (e:Event)
RETURN e.type AS type, count(*) AS n
ORDER BY type
