-- PostgreSQL only: two functions its triggers call per event written in PL/pgSQL, which
-- keeps their plans across calls. SQLite's triggers call no such functions.
SELECT 1;
