-- The keys of events that end on a UTC midnight, by that end. A list of the events
-- still running after a midnight (`ends_after` a day's start, as a calendar page's day
-- asks) is counted from the per-day counts, whose days are end days, less these
-- events: they end on that day's first second and do not run after it
-- (`store::event_count`). A few percent of the keys; the partial index costs the
-- writes of the others nothing.
CREATE INDEX event_keys_midnight_ends
    ON event_keys (kind, value, end_utc, status, protected, hidden)
    WHERE end_utc % 86400 = 0;
