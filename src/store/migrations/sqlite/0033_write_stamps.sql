-- Each commit of a write numbers itself here (`store::sqlite::group_commit`, in the
-- same transaction), and its changes carry that number. A statement reading the
-- number learns which commits its snapshot holds: a list's total counted from the
-- per-day counts then knows which later writes it has yet to count, and a cached
-- page those writes do not reach moves only its total (`domain::changes::Tally`).
CREATE TABLE calendar_version (version INTEGER NOT NULL);
INSERT INTO calendar_version (version) VALUES (0);
