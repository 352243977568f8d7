-- An event's keys, with everything a list checks of them, so that a lookup by the
-- event's ID is an index-only scan: a search looks up each match of its words so
-- (`store::events::search`), and with the index of migration 7 each of the
-- event's keys cost a visit to the table, one random page each (a month of a
-- parent category with `jazz`: 210,000 pages read for 20,000 matches, 1.6 s at a
-- million events).
DROP INDEX event_keys_event;
CREATE INDEX event_keys_event ON event_keys(event_id, kind, value)
    INCLUDE (start_utc, end_utc, status, protected, hidden, author);
