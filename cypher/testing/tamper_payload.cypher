// Tests only (proves `events verify` finds tampering): rewrite one stored payload in place.
MATCH (e:Event {seq: $seq})
SET e.payload = $payload
