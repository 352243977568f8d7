-- PostgreSQL only: its `event_search` gets what a list checks of each event beside
-- its text (see the PostgreSQL migration of the same number).
SELECT 1;
