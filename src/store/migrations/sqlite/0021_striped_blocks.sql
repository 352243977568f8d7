-- PostgreSQL spreads each block's count of `event_key_blocks` over stripes, for its
-- concurrent writers (see its migration 21). SQLite has one writer: its blocks keep
-- one row each, and its counts read them alike.
SELECT 1;
