// Nodes of Graphiti's own store (graphiti-core writes them; the projection fingerprint leaves them out) and
// the adapter's undo records (none once every pair is recorded), per label.
UNWIND ['Entity', 'Episodic', 'Community', 'Saga', 'GraphitiUndo'] AS label
CALL (label) {
  MATCH (n) WHERE label IN labels(n)
  RETURN count(n) AS n
}
RETURN label, n
