// The event log: one :Event node per event, a single :LogHead holding the chain head.
CREATE CONSTRAINT event_id_unique IF NOT EXISTS FOR (e:Event) REQUIRE e.event_id IS UNIQUE;
CREATE CONSTRAINT event_seq_unique IF NOT EXISTS FOR (e:Event) REQUIRE e.seq IS UNIQUE;
CREATE INDEX event_type IF NOT EXISTS FOR (e:Event) ON (e.type);
CREATE CONSTRAINT loghead_id_unique IF NOT EXISTS FOR (h:LogHead) REQUIRE h.id IS UNIQUE;
CREATE CONSTRAINT projection_meta_unique IF NOT EXISTS FOR (m:ProjectionMeta) REQUIRE m.id IS UNIQUE;
