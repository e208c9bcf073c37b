// The Lucene analyzer of each named full-text index, as Neo4j reports it ($names: index names).
SHOW FULLTEXT INDEXES YIELD name, options
WHERE name IN $names
RETURN name, options.indexConfig.`fulltext.analyzer` AS analyzer
