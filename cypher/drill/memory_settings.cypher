// The heap bounds on transactions the server runs with (all together, per database, per transaction).
SHOW SETTINGS YIELD name, value
WHERE name IN ['dbms.memory.transaction.total.max', 'db.memory.transaction.total.max', 'db.memory.transaction.max']
RETURN name, value
