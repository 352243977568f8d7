-- PostgreSQL only: its instances share their failed-authentication counters in a
-- table. A SQLite database has one process, which keeps its counters in memory.
SELECT 1;
