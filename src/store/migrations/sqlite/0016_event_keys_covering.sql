-- An event's keys, with everything a list checks of them: a search looks up each
-- match of its words by the event's ID (`store::events::search`), and with the
-- index of migration 7 each of the event's keys cost a visit to the table for its
-- status, password state and end (a month of a parent category with `jazz`: the
-- 20,000 matches' keys took 0.8 s at a million events; from this index, 60 ms).
-- The table's own key (kind, value, start, ID) is in every entry already.
DROP INDEX event_keys_event;
CREATE INDEX event_keys_event
    ON event_keys(event_id, kind, value, status, protected, hidden, end_utc, author);
