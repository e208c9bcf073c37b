// The identity of the database a driver talks to (to prove Graphiti's driver and the EventStore's are one).
CALL db.info() YIELD id
RETURN id
