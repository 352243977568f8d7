-- Each write's transaction ID, recorded with its changes (`store::changes::ANNOUNCE`):
-- a statement's snapshot (`pg_current_snapshot()`) then tells which of those writes
-- it saw, so that a list's total counted from the per-day counts knows which later
-- writes it has yet to count, and a cached page those writes do not reach moves only
-- its total (`domain::changes::Tally`). A record without one (a write of an earlier
-- build) reaches every such page.
ALTER TABLE calendar_changes ADD COLUMN xid xid8;
