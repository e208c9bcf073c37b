// Empty the database (tests and `graph reset`): nodes and relationships, in bounded transactions.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
