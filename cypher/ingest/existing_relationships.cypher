// How many keyed relationships the projection already holds for the keys an input is about to add to:
// document links by (source, target), exposures and disclosures by the turn they belong to.
// $links: [{key, src, dst}], $exposure_turns / $disclosure_turns: [turn id]
UNWIND $links AS link
MATCH (:Document {id: link.src})-[r:RELATED]->(:Document {id: link.dst})
RETURN 'DocumentsLinked' AS type, link.key AS key, count(r) AS n
UNION ALL
UNWIND $exposure_turns AS tid
MATCH (:Turn {id: tid})-[r:EXPOSED]->(:Document)
RETURN 'DocumentExposed' AS type, tid AS key, count(r) AS n
UNION ALL
UNWIND $disclosure_turns AS tid
MATCH (:Turn {id: tid})-[r:DISCLOSES]->(:Fact)
RETURN 'FactDisclosed' AS type, tid AS key, count(r) AS n
