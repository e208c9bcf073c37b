// Live cards of $system that have never been linked by $builder, or whose links are older than their text
// or than a later assistant turn of a source turn's session (whose reads may be the card's history reads),
// or that still list as a neighbour a document the profile's history has since exposed (growth: a neighbour
// must be unexposed, so a new exposure anywhere in the profile re-links every card that names it).
// $profile_id / $profile_ids null = all profiles.
MATCH (p:Profile)-[:HAS_MEMORY]->(m:Memory {system: $system})
WHERE ($profile_id IS NULL OR p.id = $profile_id)
  AND ($profile_ids IS NULL OR p.id IN $profile_ids) AND NOT coalesce(m.deleted, false)
OPTIONAL MATCH (m)-[l:LINKS_TO {builder: $builder}]->()
WITH p, m, max(l.seq) AS linked_seq
WHERE m.link_builder IS NULL
   OR coalesce(m.updated_seq, m.seq) > coalesce(linked_seq, 0)
   OR EXISTS {
        MATCH (m)-[:DERIVED_FROM]->(t:Turn)<-[:HAS_TURN]-(:Session)-[:HAS_TURN]->(a:Turn {role: 'assistant'})
        WHERE a.ordinal > t.ordinal AND a.seq > coalesce(linked_seq, 0)
      }
   OR EXISTS {
        MATCH (m)-[:LINKS_TO {builder: $builder, kind: 'neighbor'}]->(d:Document)
        WHERE EXISTS { (p)-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(:Turn)-[:EXPOSED]->(d) }
      }
RETURN p.id AS profile_id, m.id AS memory_id, m.text AS text
ORDER BY p.id, m.id
