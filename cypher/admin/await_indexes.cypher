// Block until every index is online (populated); $seconds bounds the wait.
CALL db.awaitIndexes($seconds)
