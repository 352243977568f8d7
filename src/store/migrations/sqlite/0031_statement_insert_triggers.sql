-- PostgreSQL only: its insert triggers run once per statement (see the PostgreSQL
-- migration of the same number). SQLite has row triggers only, and one writer.
SELECT 1;
