// $ids: profile ids -> one row per profile found: its node (as nodes/profile) and, only when asked for, its facts
// ($facts; as rel/profile_facts) with the turns that disclosed the first $facts_first of them ($fact_turns; as
// rel/fact_turns), its sessions ($sessions; as rel/profile_sessions) with the turns of the first $sessions_first
// of them ($session_turns; as rel/session_turns), its topics ($topics; as rel/profile_topics) and items ($items;
// as rel/profile_items). One query answers the profile page; each list is ordered exactly as the rel/ query
// whose loader it primes (`turns` is null for facts and sessions past the first ones).
MATCH (p:Profile) WHERE p.id IN $ids
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_FACT]->(f:Fact) WHERE $facts
  WITH f ORDER BY f.seq, f.id
  WITH collect(f) AS facts
  UNWIND range(0, size(facts) - 1) AS i
  WITH facts[i] AS f, $fact_turns AND i < $facts_first AS with_turns
  CALL (f, with_turns) {
    OPTIONAL MATCH (t:Turn)-[:DISCLOSES]->(f) WHERE with_turns
    WITH t ORDER BY t.seq
    RETURN collect(t {.*}) AS turns
  }
  RETURN collect({node: f {.*}, turns: CASE WHEN with_turns THEN turns END}) AS facts
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_SESSION]->(s:Session) WHERE $sessions
  WITH s ORDER BY s.ordinal, s.id
  WITH collect(s) AS sessions
  UNWIND range(0, size(sessions) - 1) AS i
  WITH sessions[i] AS s, $session_turns AND i < $sessions_first AS with_turns
  CALL (s, with_turns) {
    OPTIONAL MATCH (s)-[:HAS_TURN]->(t:Turn) WHERE with_turns
    WITH t ORDER BY t.ordinal
    RETURN collect(t {.*}) AS turns
  }
  RETURN collect({node: s {.*}, turns: CASE WHEN with_turns THEN turns END}) AS sessions
}
CALL (p) {
  OPTIONAL MATCH (p)-[:HAS_TOPIC]->(n:Topic) WHERE $topics
  WITH n ORDER BY n.seq, n.id
  RETURN collect(n {.*}) AS topics
}
CALL (p) {
  OPTIONAL MATCH (n:Item)-[:FOR_PROFILE]->(p) WHERE $items
  WITH n ORDER BY n.seq, n.id
  RETURN collect(n {.*}) AS items
}
RETURN collect({key: p.id, node: p {.*, embedding: null}, facts: facts, sessions: sessions, topics: topics,
                items: items}) AS rows
