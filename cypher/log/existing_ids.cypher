UNWIND $ids AS id
MATCH (e:Event {event_id: id})
RETURN collect(id) AS existing
