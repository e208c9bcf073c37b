// Turns among $ids that already exist, with the content an idempotent re-append must match.
MATCH (t:Turn) WHERE t.id IN $ids
RETURN t.id AS id, t.session_id AS session_id, t.role AS role, t.text AS text, t.speaker AS speaker, t.at AS at
