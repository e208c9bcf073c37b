// How many keyed relationships the projection already holds for the keys an input is about to add to:
// document links by (source, target), exposures and disclosures by the turn they belong to (a row for every
// turn in the graph, 0 when it has none: a turn an earlier input stated is complete), verdicts by item
// and gate (the item's `verifications` list, entries `gate:verdict`), augmentations by the augmented item.
// $links: [{key, src, dst}], $exposure_turns / $disclosure_turns / $augmented_items: [id],
// $verdicts: [{key, item, gate}]
UNWIND $links AS link
MATCH (:Document {id: link.src})-[r:RELATED]->(:Document {id: link.dst})
RETURN 'DocumentsLinked' AS type, link.key AS key, count(r) AS n
UNION ALL
UNWIND $exposure_turns AS tid
MATCH (t:Turn {id: tid})
OPTIONAL MATCH (t)-[r:EXPOSED]->(:Document)
RETURN 'DocumentExposed' AS type, tid AS key, count(r) AS n
UNION ALL
UNWIND $disclosure_turns AS tid
MATCH (t:Turn {id: tid})
OPTIONAL MATCH (t)-[r:DISCLOSES]->(:Fact)
RETURN 'FactDisclosed' AS type, tid AS key, count(r) AS n
UNION ALL
UNWIND $verdicts AS verdict
MATCH (i:Item {id: verdict.item})
WITH verdict, [v IN coalesce(i.verifications, []) WHERE v STARTS WITH verdict.gate + ':'] AS held
WHERE size(held) > 0
RETURN 'ItemVerified' AS type, verdict.key AS key, size(held) AS n
UNION ALL
UNWIND $augmented_items AS iid
MATCH (:Item {id: iid})-[r:AUGMENTED_FROM]->(:Item)
RETURN 'ItemAugmented' AS type, iid AS key, count(r) AS n
