-- PostgreSQL only: functions its triggers call keep their plans (see the PostgreSQL
-- migration of the same number). SQLite's triggers are statements of their own,
-- prepared once with the schema.
SELECT 1;
