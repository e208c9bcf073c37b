// Lookup indexes used by projections and queries.
CREATE INDEX turn_session_ordinal IF NOT EXISTS FOR (t:Turn) ON (t.session_id, t.ordinal);
CREATE INDEX session_profile IF NOT EXISTS FOR (s:Session) ON (s.profile_id);
CREATE INDEX item_dataset IF NOT EXISTS FOR (i:Item) ON (i.dataset);
CREATE INDEX profile_dataset IF NOT EXISTS FOR (p:Profile) ON (p.dataset);
CREATE INDEX memory_profile_system IF NOT EXISTS FOR (m:Memory) ON (m.profile_id, m.system);
CREATE INDEX chunk_doc IF NOT EXISTS FOR (c:Chunk) ON (c.doc_id);
CREATE INDEX document_source IF NOT EXISTS FOR (d:Document) ON (d.source);
CREATE INDEX qa_judgment_run IF NOT EXISTS FOR (j:QaJudgment) ON (j.qa_run_id);
