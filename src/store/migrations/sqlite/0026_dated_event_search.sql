-- PostgreSQL only: its `event_search` gets each event's start (see the PostgreSQL
-- migration of the same number). SQLite counts a rare word in a window from the
-- window's keys checked against a set of the index's matches (`search::in_set`).
SELECT 1;
