// Whether Graphiti holds an episode with this uuid (a pair attempt that stopped before it was recorded).
MATCH (e:Episodic {uuid: $uuid})
RETURN count(e) AS n
