// The profile owning topic $topic_id (no row when the topic does not exist).
MATCH (t:Topic {id: $topic_id})
RETURN t.profile_id AS profile_id
