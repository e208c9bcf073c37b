// $rows: {seq, profile_id, summary_id, system, model, prompt_sha256,
//         states: [{state_id, text, concerns, time_context, unresolved, source_turn_ids}]}
// A new summary supersedes the profile's earlier states of the same system.
UNWIND $rows AS row
MATCH (p:Profile {id: row.profile_id})
CALL (p, row) {
  MATCH (p)-[:HAS_STATE]->(old:State {system: row.system})
  WHERE old.active
  SET old.active = false, old.superseded_seq = row.seq
}
WITH p, row
CALL (p, row) {
  UNWIND row.states AS st
  CREATE (s:State {id: st.state_id, seq: row.seq, profile_id: row.profile_id, system: row.system,
                   summary_id: row.summary_id, text: st.text, concerns: st.concerns,
                   time_context: st.time_context, unresolved: st.unresolved, active: true,
                   model: row.model, prompt_sha256: row.prompt_sha256})
  CREATE (p)-[:HAS_STATE {seq: row.seq}]->(s)
  WITH s, st
  CALL (s, st) {
    UNWIND st.source_turn_ids AS tid
    MATCH (t:Turn {id: tid, profile_id: s.profile_id})
    CREATE (s)-[:DERIVED_FROM {seq: s.seq}]->(t)
    RETURN count(*) AS n_turns
  }
  WITH st, n_turns WHERE n_turns = size(st.source_turn_ids)
  RETURN count(*) AS n_states
}
WITH row, n_states WHERE n_states = size(row.states)
RETURN collect(row.summary_id) AS applied
