// Whether any memory of the system exists (an SDK ranker is opened only then).
RETURN EXISTS { MATCH (m:Memory) WHERE m.system = $system } AS present
