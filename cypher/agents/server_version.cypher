// The Neo4j server's name, version and edition (recorded with every run).
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
