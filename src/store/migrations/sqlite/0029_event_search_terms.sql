-- PostgreSQL only: its `event_search` gets each event's terms beside its text (see
-- the PostgreSQL migration of the same number).
SELECT 1;
