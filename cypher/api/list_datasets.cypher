// Every dataset ingested into the graph (one per Ingest dataset name), with its profiles and items and whether
// an ingest of it is not complete yet: the browser's start page.
MATCH (g:Ingest)
WITH g.dataset AS name, sum(CASE WHEN g.status = 'incomplete' THEN 1 ELSE 0 END) AS incomplete
ORDER BY name
CALL (name) {
  OPTIONAL MATCH (p:Profile {dataset: name})
  RETURN count(p) AS profiles
}
CALL (name) {
  OPTIONAL MATCH (i:Item {dataset: name})
  RETURN count(i) AS items
}
RETURN collect({name: name, profiles: profiles, items: items, complete: incomplete = 0}) AS rows
