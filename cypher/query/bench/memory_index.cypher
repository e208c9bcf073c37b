// Benchmark: the shared memory vector index, post-filtered to one profile's live cards of one system.
CALL db.index.vector.queryNodes('memory_embedding', $limit, $vector) YIELD node, score
WITH node, score WHERE node.profile_id = $profile_id AND node.system = $system AND NOT coalesce(node.deleted, false)
RETURN node.id AS memory_id, score
