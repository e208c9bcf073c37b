// Remove every projected node (the log, its head and the meta node stay), in bounded transactions.
MATCH (n)
WHERE NOT n:Event AND NOT n:LogHead AND NOT n:ProjectionMeta
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
