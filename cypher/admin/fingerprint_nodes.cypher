MATCH (n)
WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta
RETURN labels(n) AS labels, properties(n) AS props
