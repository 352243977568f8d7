-- SQLite only: its triggers that find an event's keys by the event's ID use the
-- event's index again. PostgreSQL's trigger functions look them up by that ID.
SELECT 1;
