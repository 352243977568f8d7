-- PostgreSQL only: its `linked_search` gets each venue's and organizer's type (see
-- the PostgreSQL migration of the same number).
SELECT 1;
