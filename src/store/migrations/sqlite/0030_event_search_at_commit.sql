-- PostgreSQL only: its `event_search` row of a new event is written at commit (see
-- the PostgreSQL migration of the same number).
SELECT 1;
