// The open transaction holding the most heap (Neo4j's estimate), with the head of its current query.
SHOW TRANSACTIONS YIELD estimatedUsedHeapMemory AS heap, currentQuery AS query
WHERE NOT query STARTS WITH 'SHOW TRANSACTIONS'
RETURN heap, query
ORDER BY heap DESC
LIMIT 1
