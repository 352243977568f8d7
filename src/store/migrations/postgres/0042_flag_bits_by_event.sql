-- SQLite only: its flag-bit triggers (migration 41) find an event's own key by the
-- event's index again. PostgreSQL's trigger functions look it up by the event's ID.
SELECT 1;
