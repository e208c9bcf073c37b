// Every item of one dataset: its profile, batch, distinct facts its requirements use and support documents.
MATCH (i:Item {dataset: $dataset})
RETURN i.id AS item_id, i.profile_id AS profile_id, i.batch AS batch,
       size(COLLECT { MATCH (i)-[:HAS_REQUIREMENT]->(:Requirement)-[:USES_FACT]->(f:Fact) RETURN DISTINCT f.id })
         AS n_facts,
       COUNT { (i)-[:SUPPORTED_BY]->(:Document) } AS n_support
ORDER BY item_id
