-- The per-day counts by how many days their events run past their start day: the
-- longest listed event, which tells a calendar page's day how far back to look for
-- events still running on it, is the last entry of one key's range, not a read of
-- every pair of that key at each page (12,600 at a million events).
CREATE INDEX event_key_days_by_length ON event_key_days (kind, (end_day - start_day));
